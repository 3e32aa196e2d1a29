//! A crate outside the workspace that depends on `sparse-runtime` by path, as README's
//! Installation section says, builds and runs README's first example.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The first `rust` code block of README.md.
fn readme_example(readme: &str) -> String {
    let start = readme
        .find("```rust\n")
        .expect("README has a rust code block")
        + "```rust\n".len();
    let end = start + readme[start..].find("```").expect("the code block ends");
    readme[start..end].to_string()
}

#[test]
fn readme_example_builds_and_runs_in_a_crate_of_its_own() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let runtime = root.join("sparse-runtime");
    assert!(
        readme.contains("sparse-runtime = { path = "),
        "README's Installation section names the path dependency this test uses"
    );
    let dir: PathBuf = root.join("target/tests/outside-crate");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    // A `[workspace]` of its own: the directory lies inside this workspace's tree.
    let manifest = format!(
        "[package]\nname = \"outside\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [dependencies]\nsparse-runtime = {{ path = {:?} }}\n\n[workspace]\n",
        runtime.display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/main.rs"), readme_example(&readme)).unwrap();
    // The workspace's lock file pins the same dependency versions, already downloaded.
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let out = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--offline"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the README example failed in an outside crate:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
