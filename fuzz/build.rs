//! Embeds the seed corpus (`corpus/*.rs`, sorted by name) as a static list.

use std::{env, fs, path::Path};

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("fuzz/corpus exists")
        .map(|e| e.expect("readable corpus entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    let mut out = String::from("/// The seed corpus: the body of one `sparse_kernel!` invocation per entry.\npub const CORPUS: &[(&str, &str)] = &[\n");
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy();
        out.push_str(&format!(
            "    ({name:?}, include_str!({:?})),\n",
            f.display().to_string()
        ));
        println!("cargo:rerun-if-changed={}", f.display());
    }
    out.push_str("];\n");
    let dest = Path::new(&env::var("OUT_DIR").unwrap()).join("corpus.rs");
    fs::write(dest, out).expect("OUT_DIR is writable");
}
