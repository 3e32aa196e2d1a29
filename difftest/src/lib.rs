//! The differential tester's runtime half: builds a generated kernel's inputs with the runtime's
//! public API, calls the kernel, re-validates and reads its output, and compares it with the
//! dense reference of [`sparse_difftest_gen`]. See `TESTING.md` at the workspace root.
//!
//! Generated test code calls [`run_kernel`] with a small function that names the kernel's
//! concrete types:
//!
//! ```text
//! fn call(c: &mut Case<'_>) -> Result<(), Stop> {
//!     let a: Csr<f64> = c.input(1)?;
//!     let x: Dense1<f64> = c.input(2)?;
//!     let mut y: Dense1<f64> = c.output(0)?;
//!     let r = k17(&mut y, &a, &x);
//!     c.returned(r);
//!     c.read_tensor(0, &y);
//!     Ok(())
//! }
//! ```

pub use sparse_difftest_gen as gen;
pub use sparse_difftest_gen::testcode::kernel_module;

use gen::data;
use gen::kernel::Kernel;
use gen::reference::{self, Stored};
use sparse_runtime::convert::{Source, Target};
use sparse_runtime::{Bcsr, CooAos, Csb, Dia, Error, Index, Levels, ModeOrder, Tensor, Value};
use std::cell::RefCell;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A value type kernels are generated over.
pub trait TestValue: Value {
    /// Converts a generated value (exact for the values the generator draws).
    fn from_f64(x: f64) -> Self;
    /// Converts for comparison with the reference (exact for `f32` and small `i64`).
    fn to_f64(self) -> f64;
}

impl TestValue for f64 {
    fn from_f64(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

impl TestValue for f32 {
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
}

impl TestValue for i64 {
    fn from_f64(x: f64) -> Self {
        x as i64
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

/// What went wrong with a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// A wrong value, pattern, or `Ok`/`Err` result.
    Wrong,
    /// A panic (kernel, construction or reading).
    Panic,
    /// The output fails re-validation after the call.
    InvalidOutput,
    /// `from_entries` failed or built a tensor that fails re-validation or lost entries.
    InvalidInput,
    /// The process running the kernel died (found by the sweep driver).
    Abort,
    /// The kernel's expansion does not compile (found by the sweep driver).
    Compile,
    /// The compiler's verdict disagrees with the acceptance rules, or it panicked.
    Verdict,
}

impl Class {
    /// Every class, in summary order.
    pub const ALL: [Class; 7] = [
        Class::Verdict,
        Class::Wrong,
        Class::Panic,
        Class::Abort,
        Class::Compile,
        Class::InvalidOutput,
        Class::InvalidInput,
    ];

    /// The class's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Class::Wrong => "wrong",
            Class::Panic => "panic",
            Class::InvalidOutput => "invalid-output",
            Class::InvalidInput => "invalid-input",
            Class::Abort => "abort",
            Class::Compile => "compile",
            Class::Verdict => "verdict",
        }
    }

    /// Parses [`Class::name`].
    pub fn parse(s: &str) -> Option<Class> {
        Class::ALL.iter().copied().find(|c| c.name() == s)
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One failure of one kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct Failure {
    /// Its class.
    pub class: Class,
    /// The data case (sizes, densities, seed), if it happened in one.
    pub case: Option<String>,
    /// What differs.
    pub detail: String,
}

/// The outcome of running one kernel on all its cases.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Report {
    /// The kernel's id (seed).
    pub id: u64,
    /// Cases run.
    pub cases: usize,
    /// Failures (at most one per case).
    pub failures: Vec<Failure>,
}

/// An input could not be built (already recorded as a failure); the case stops.
#[derive(Debug)]
pub struct Stop;

/// The generated function that builds a kernel's operands from a [`Case`] and calls it.
pub type CallFn = fn(&mut Case<'_>) -> Result<(), Stop>;

/// One data case while it runs: the generated call function builds operands through it and
/// hands it the result.
pub struct Case<'a> {
    kernel: &'a Kernel,
    spec: &'a data::Case,
    stored: Vec<Option<Stored>>,
    /// Per output parameter, its stale contents.
    old: Vec<Option<data::Entries>>,
    result: Option<Result<(), String>>,
    /// What the same call returned when run serially (the call itself runs in parallel).
    serial: Option<Result<(), String>>,
    /// Per output parameter, its contents after the call (`None` if it could not be read).
    got: Vec<Option<data::Entries>>,
    /// Per tensor output, its stale fill value.
    old_fill: Vec<f64>,
    /// Per tensor output, its fill value after the call.
    got_fill: Vec<Option<f64>>,
    phase: String,
    failures: Vec<(Class, String)>,
}

fn revalidate<V: Value, L: Levels + Clone, O: ModeOrder>(t: &Tensor<V, L, O>) -> Result<(), Error> {
    Tensor::<V, L, O>::from_levels(t.shape(), t.levels().clone(), t.vals().to_vec()).map(|_| ())
}

/// What the harness builds an operand of: built from logical entries, re-validated through
/// its raw-array constructor, read back as logical entries.
pub trait Operand<V: Value>: Sized {
    /// `from_entries`; a format whose block size is a run-time value (`Csb`) is built with
    /// `block` (`data::Case::blocks`), its default when `None`. Other formats ignore it.
    fn from_entries<'c>(
        shape: &[usize],
        block: Option<usize>,
        entries: impl Iterator<Item = (&'c [usize], V)>,
    ) -> Result<Self, Error>;
    /// Rebuilds it from its parts through the validating constructor.
    fn revalidate(&self) -> Result<(), Error>;
    /// Its stored entries, by logical coordinate.
    fn entries(&self) -> Vec<(Vec<usize>, V)>;
    /// The same operand with fill value `fill` (`with_fill`).
    fn filled(self, fill: V) -> Self;
    /// Its fill value.
    fn fill_value(&self) -> V;
}

impl<V: Value, L: Levels + Clone, O: ModeOrder> Operand<V> for Tensor<V, L, O> {
    fn from_entries<'c>(
        shape: &[usize],
        _block: Option<usize>,
        entries: impl Iterator<Item = (&'c [usize], V)>,
    ) -> Result<Self, Error> {
        Tensor::from_entries(shape, entries)
    }
    fn revalidate(&self) -> Result<(), Error> {
        revalidate(self)
    }
    fn entries(&self) -> Vec<(Vec<usize>, V)> {
        Tensor::entries(self)
    }
    fn filled(self, fill: V) -> Self {
        self.with_fill(fill)
    }
    fn fill_value(&self) -> V {
        self.fill()
    }
}

impl<V: Value> Operand<V> for Dia<V> {
    fn from_entries<'c>(
        shape: &[usize],
        _block: Option<usize>,
        entries: impl Iterator<Item = (&'c [usize], V)>,
    ) -> Result<Self, Error> {
        Dia::from_entries(shape, entries)
    }
    fn revalidate(&self) -> Result<(), Error> {
        let s = self.shape();
        Dia::from_diagonals(s[0], s[1], self.offsets().to_vec(), self.vals().to_vec()).map(drop)
    }
    fn entries(&self) -> Vec<(Vec<usize>, V)> {
        Dia::entries(self)
    }
    fn filled(self, fill: V) -> Self {
        self.with_fill(fill)
    }
    fn fill_value(&self) -> V {
        self.fill()
    }
}

impl<V: Value, I: Index> Operand<V> for CooAos<V, I> {
    fn from_entries<'c>(
        shape: &[usize],
        _block: Option<usize>,
        entries: impl Iterator<Item = (&'c [usize], V)>,
    ) -> Result<Self, Error> {
        CooAos::from_entries(shape, entries)
    }
    fn revalidate(&self) -> Result<(), Error> {
        let s = self.shape();
        CooAos::from_aos_arrays(s[0], s[1], self.pairs().to_vec(), self.vals().to_vec()).map(drop)
    }
    fn entries(&self) -> Vec<(Vec<usize>, V)> {
        CooAos::entries(self)
    }
    fn filled(self, fill: V) -> Self {
        self.with_fill(fill)
    }
    fn fill_value(&self) -> V {
        self.fill()
    }
}

impl<V: Value, const R: usize, const C: usize, I: Index> Operand<V> for Bcsr<V, R, C, I> {
    fn from_entries<'c>(
        shape: &[usize],
        _block: Option<usize>,
        entries: impl Iterator<Item = (&'c [usize], V)>,
    ) -> Result<Self, Error> {
        Bcsr::from_entries(shape, entries)
    }
    fn revalidate(&self) -> Result<(), Error> {
        let s = self.shape();
        Bcsr::<V, R, C, I>::from_bsr_arrays(
            s[0],
            s[1],
            self.row_ptr().to_vec(),
            self.col_idx().to_vec(),
            self.vals().to_vec(),
        )
        .map(drop)
    }
    fn entries(&self) -> Vec<(Vec<usize>, V)> {
        Bcsr::entries(self)
    }
    fn filled(self, fill: V) -> Self {
        self.with_fill(fill)
    }
    fn fill_value(&self) -> V {
        self.fill()
    }
}

impl<V: Value, I: Index> Operand<V> for Csb<V, I> {
    fn from_entries<'c>(
        shape: &[usize],
        block: Option<usize>,
        entries: impl Iterator<Item = (&'c [usize], V)>,
    ) -> Result<Self, Error> {
        match block {
            Some(b) => Csb::from_entries_with_block(shape, b, entries),
            None => Csb::from_entries(shape, entries),
        }
    }
    fn revalidate(&self) -> Result<(), Error> {
        let s = self.shape();
        Csb::<V, I>::from_csb_arrays(
            s[0],
            s[1],
            self.block_size(),
            self.blk_ptr().to_vec(),
            self.row_idx().to_vec(),
            self.col_idx().to_vec(),
            self.vals().to_vec(),
        )
        .map(drop)
    }
    fn entries(&self) -> Vec<(Vec<usize>, V)> {
        Csb::entries(self)
    }
    fn filled(self, fill: V) -> Self {
        self.with_fill(fill)
    }
    fn fill_value(&self) -> V {
        self.fill()
    }
}

fn as_f64<V: TestValue>(entries: Vec<(Vec<usize>, V)>) -> Vec<(Vec<usize>, f64)> {
    entries.into_iter().map(|(c, v)| (c, v.to_f64())).collect()
}

impl<'a> Case<'a> {
    fn new(kernel: &'a Kernel, spec: &'a data::Case) -> Self {
        Case {
            kernel,
            spec,
            stored: vec![None; kernel.params.len()],
            old: vec![None; kernel.params.len()],
            result: None,
            serial: None,
            got: vec![None; kernel.params.len()],
            old_fill: vec![0.0; kernel.params.len()],
            got_fill: vec![None; kernel.params.len()],
            phase: String::new(),
            failures: Vec::new(),
        }
    }

    fn fail(&mut self, class: Class, detail: String) {
        self.failures.push((class, detail));
    }

    /// Builds tensor parameter `p` from the case's entries and checks it.
    fn build<V: TestValue, T: Operand<V>>(&mut self, p: usize) -> Result<T, Stop> {
        let name = &self.kernel.params[p].name;
        let fmt = self.kernel.params[p].format().expect("a tensor parameter");
        self.phase = format!("while building `{name}`");
        let shape = &self.spec.shapes[p];
        let want = &self.spec.entries[p];
        let entries = want.iter().map(|(c, v)| (c.as_slice(), V::from_f64(*v)));
        let block = self.spec.blocks[p];
        let fill = V::from_f64(self.spec.fills[p]);
        let t = match T::from_entries(shape, block, entries) {
            Ok(t) => t.filled(fill),
            Err(e) => {
                let d = format!(
                    "from_entries failed for `{name}` {} of shape {shape:?} with entries {want:?}: {e}",
                    fmt.describe()
                );
                self.fail(Class::InvalidInput, d);
                return Err(Stop);
            }
        };
        if let Err(e) = t.revalidate() {
            let d = format!(
                "from_entries built an invalid `{name}` {} of shape {shape:?} from entries {want:?}: {e}",
                fmt.describe()
            );
            self.fail(Class::InvalidInput, d);
            return Err(Stop);
        }
        let stored = as_f64(t.entries());
        // Every entry is stored once with its value; anything else stored is an explicit zero
        // (padding under dense levels).
        let mut lost = Vec::new();
        for (c, v) in want {
            let here: Vec<&f64> = stored.iter().filter(|e| e.0 == *c).map(|e| &e.1).collect();
            if here.len() != 1 || *here[0] != *v {
                lost.push(format!("{c:?}={v} stored as {here:?}"));
            }
        }
        for (c, v) in &stored {
            if *v != 0.0 && !want.iter().any(|e| e.0 == *c) {
                lost.push(format!("{c:?}={v} stored but never given"));
            }
        }
        if !lost.is_empty() {
            let d = format!(
                "`{name}` {} of shape {shape:?} does not store its entries: {}",
                fmt.describe(),
                lost.join(", ")
            );
            self.fail(Class::InvalidInput, d);
            return Err(Stop);
        }
        self.stored[p] = Some(Stored {
            shape: shape.clone(),
            entries: stored,
            mags: Vec::new(),
            fill: t.fill_value().to_f64(),
        });
        Ok(t)
    }

    /// Tensor input `p` (a `Tensor`, or a struct-held `Dia`, `CooAos`, `Bcsr`, `Csb`).
    pub fn input<V: TestValue, T: Operand<V>>(&mut self, p: usize) -> Result<T, Stop> {
        self.build(p)
    }

    /// Tensor input `p` built as a `W` (checked as [`Case::input`] checks) and converted into
    /// its own format `T` (`Target::from_source`, the generator's conversion draws,
    /// `gen::generate::via_format`): the conversion must succeed, give a valid tensor, and
    /// keep every nonzero component with its value and add none (explicit zeros may come and
    /// go with padding). The reference then reads what `T` stores.
    pub fn input_via<V, T, W>(&mut self, p: usize) -> Result<T, Stop>
    where
        V: TestValue,
        T: Operand<V> + Target<V>,
        W: Operand<V> + Source<V>,
    {
        let w: W = self.build(p)?;
        let name = &self.kernel.params[p].name;
        let fmt = self.kernel.params[p].format().expect("a tensor parameter");
        let via = std::any::type_name::<W>();
        self.phase = format!("while converting `{name}` from {via}");
        let fail = |e: String| format!("converting `{name}` {} from {via}: {e}", fmt.describe());
        let t = match T::from_source(&w) {
            Ok(t) => t,
            Err(e) => {
                let d = fail(format!("failed: {e}"));
                self.fail(Class::InvalidInput, d);
                return Err(Stop);
            }
        };
        if let Err(e) = t.revalidate() {
            let d = fail(format!("built an invalid tensor: {e}"));
            self.fail(Class::InvalidInput, d);
            return Err(Stop);
        }
        let got = as_f64(t.entries());
        let (had_fill, got_fill) = (w.fill_value().to_f64(), t.fill_value().to_f64());
        // Every component keeps its logical value (a stored one its value, another the fill
        // value): explicit zeros equal to the fill value may come and go with padding, a
        // padded component holds the fill value.
        let had = self.stored[p]
            .as_ref()
            .map_or(Vec::new(), |s| s.entries.clone());
        let value_at = |e: &[(Vec<usize>, f64)], fill: f64, c: &[usize]| -> f64 {
            e.iter().find(|x| x.0 == c).map_or(fill, |x| x.1)
        };
        let differ: Vec<String> = had
            .iter()
            .chain(&got)
            .map(|x| &x.0)
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .filter_map(|c| {
                let (a, b) = (value_at(&had, had_fill, c), value_at(&got, got_fill, c));
                (a.to_bits() != b.to_bits() && a != b).then(|| format!("{c:?}: {a} became {b}"))
            })
            .collect();
        if !differ.is_empty() || had_fill.to_bits() != got_fill.to_bits() {
            let d = fail(format!(
                "the components differ (fill {had_fill} became {got_fill}): {}",
                differ.join(", ")
            ));
            self.fail(Class::InvalidInput, d);
            return Err(Stop);
        }
        let shape = self.spec.shapes[p].clone();
        self.stored[p] = Some(Stored {
            shape,
            entries: got,
            mags: Vec::new(),
            fill: got_fill,
        });
        Ok(t)
    }

    /// Scalar input `p`.
    pub fn scalar<V: TestValue>(&self, p: usize) -> V {
        V::from_f64(self.spec.scalars[p])
    }

    /// Window bound `p` (a `usize` parameter).
    pub fn index(&self, p: usize) -> usize {
        self.spec.scalars[p] as usize
    }

    /// The tensor output `p`, holding stale entries.
    pub fn output<V: TestValue, L: Levels + Clone, O: ModeOrder>(
        &mut self,
        p: usize,
    ) -> Result<Tensor<V, L, O>, Stop> {
        let t: Tensor<V, L, O> = self.build(p)?;
        // The stale contents stay in `stored` too: a later statement of a sequence (or the
        // statement itself) may read them.
        self.old[p] = self.stored[p].as_ref().map(|s| s.entries.clone());
        self.old_fill[p] = t.fill().to_f64();
        self.phase = "in the kernel call".into();
        Ok(t)
    }

    /// The scalar output `p`, holding a stale value.
    pub fn scalar_output<V: TestValue>(&mut self, p: usize) -> V {
        let v = self.spec.scalars[p];
        self.old[p] = Some(vec![(Vec::new(), v)]);
        self.phase = "in the kernel call".into();
        V::from_f64(v)
    }

    /// Records what the call returned.
    pub fn returned(&mut self, r: Result<(), Error>) {
        self.result = Some(r.map_err(|e| e.to_string()));
    }

    /// Records what the serial run of the call returned.
    pub fn serial_returned(&mut self, r: Result<(), Error>) {
        self.serial = Some(r.map_err(|e| e.to_string()));
    }

    /// Checks that tensor output `p` of the parallel call (`parallel`) holds what the serial
    /// run computed, bit for bit: a row is computed by the same operations in the same order
    /// whichever thread runs it.
    pub fn same_as_serial<V: TestValue, L: Levels + Clone, O: ModeOrder>(
        &mut self,
        p: usize,
        serial: &Tensor<V, L, O>,
        parallel: &Tensor<V, L, O>,
    ) {
        let bits = |t: &Tensor<V, L, O>| {
            let entries = as_f64(t.entries());
            let entries: Vec<(Vec<usize>, u64)> =
                entries.into_iter().map(|(c, v)| (c, v.to_bits())).collect();
            (entries, t.fill().to_f64().to_bits())
        };
        let (s, q) = (bits(serial), bits(parallel));
        if s != q || self.serial != self.result {
            let name = &self.kernel.params[p].name;
            let d = format!(
                "the parallel call differs from the serial one in `{name}`: serial returned {:?} with {:?} (fill bits {:x}), parallel {:?} with {:?} (fill bits {:x})",
                self.serial, s.0, s.1, self.result, q.0, q.1
            );
            self.fail(Class::Wrong, d);
        }
    }

    /// Checks a kernel's compute-only pair (`sparse_difftest_gen::testcode`): the output its
    /// assembling function left (`by_asm`, after it returned `assembled`) has the kernel's
    /// pattern (`kernel`), and the compute-only variant, called on it with its values
    /// overwritten (returning `values`, `None` if not called), restored them bit for bit
    /// (`computed`). Both calls return `Ok` where the kernel did, the first `Err` where it did
    /// not.
    pub fn same_as_compute_only<V: TestValue, L: Levels + Clone, O: ModeOrder>(
        &mut self,
        p: usize,
        kernel: &Tensor<V, L, O>,
        by_asm: &Tensor<V, L, O>,
        computed: &Tensor<V, L, O>,
        assembled: Result<(), Error>,
        values: Option<Result<(), Error>>,
    ) {
        let bits = |t: &Tensor<V, L, O>| {
            let entries = as_f64(t.entries());
            let entries: Vec<(Vec<usize>, u64)> =
                entries.into_iter().map(|(c, v)| (c, v.to_bits())).collect();
            (entries, t.fill().to_f64().to_bits())
        };
        let pattern =
            |t: &Tensor<V, L, O>| bits(t).0.into_iter().map(|(c, _)| c).collect::<Vec<_>>();
        let values = values.map(|r| r.map_err(|e| e.to_string()));
        let assembled = assembled.map_err(|e| e.to_string());
        let agree = match self.result {
            Some(Ok(())) => {
                assembled.is_ok()
                    && values == Some(Ok(()))
                    && pattern(kernel) == pattern(by_asm)
                    && bits(by_asm) == bits(computed)
            }
            _ => assembled.is_err(),
        };
        if !agree {
            let name = &self.kernel.params[p].name;
            let d = format!(
                "the compute-only pair differs in `{name}`: the kernel returned {:?} with {:?}; the assembling function {:?} with {:?}; the compute-only one {:?} with {:?}",
                self.result,
                bits(kernel),
                assembled,
                bits(by_asm),
                values,
                bits(computed)
            );
            self.fail(Class::Wrong, d);
        }
    }

    /// [`Case::same_as_serial`] for scalar output `p`.
    pub fn same_scalar_as_serial<V: TestValue>(&mut self, p: usize, serial: V, parallel: V) {
        let (s, q) = (serial.to_f64().to_bits(), parallel.to_f64().to_bits());
        if s != q || self.serial != self.result {
            let name = &self.kernel.params[p].name;
            let d = format!(
                "the parallel call differs from the serial one in `{name}`: serial returned {:?} with {}, parallel {:?} with {}",
                self.serial, f64::from_bits(s), self.result, f64::from_bits(q)
            );
            self.fail(Class::Wrong, d);
        }
    }

    /// Records tensor output `p` after the call.
    pub fn read_tensor<V: TestValue, L: Levels + Clone, O: ModeOrder>(
        &mut self,
        p: usize,
        y: &Tensor<V, L, O>,
    ) {
        let name = &self.kernel.params[p].name;
        self.phase = format!("while reading the output `{name}`");
        match revalidate(y) {
            Ok(()) => {
                self.got[p] = Some(as_f64(y.entries()));
                self.got_fill[p] = Some(y.fill().to_f64());
            }
            Err(e) => {
                let fmt = self.kernel.params[p].format().expect("a tensor output");
                let ret = match &self.result {
                    Some(Ok(())) => "Ok".to_string(),
                    Some(Err(m)) => format!("Err({m})"),
                    None => "?".into(),
                };
                let d = format!(
                    "output `{name}` {} is invalid after the call (which returned {ret}): {e}",
                    fmt.describe()
                );
                self.fail(Class::InvalidOutput, d);
            }
        }
    }

    /// Records scalar output `p` after the call.
    pub fn read_scalar<V: TestValue>(&mut self, p: usize, v: V) {
        self.got[p] = Some(vec![(Vec::new(), v.to_f64())]);
    }

    /// The outputs whose contents differ from their stale ones (after a call that returned
    /// `Err`, which must change nothing).
    fn changed_outputs(&self) -> Vec<String> {
        let sorted = |e: &[(Vec<usize>, f64)]| {
            let mut e = e.to_vec();
            e.sort_by(|a, b| a.0.cmp(&b.0));
            e
        };
        (0..self.kernel.params.len())
            .filter_map(|p| {
                let (old, got) = (self.old[p].as_ref()?, self.got[p].as_ref()?);
                let same = sorted(old)
                    .iter()
                    .zip(sorted(got))
                    .all(|(a, b)| a.0 == b.0 && a.1.to_bits() == b.1.to_bits());
                let fill_kept =
                    self.got_fill[p].is_none_or(|f| f.to_bits() == self.old_fill[p].to_bits());
                (!same || old.len() != got.len() || !fill_kept).then(|| {
                    format!(
                        "`{}` changed from {old:?} (fill {}) to {got:?} (fill {:?})",
                        self.kernel.params[p].name, self.old_fill[p], self.got_fill[p]
                    )
                })
            })
            .collect()
    }

    /// Compares what the call did with the reference.
    fn check(&mut self) {
        let Some(result) = self.result.clone() else {
            self.fail(Class::Wrong, "the kernel was not called".into());
            return;
        };
        if self.spec.expect_err() {
            let what = if self.spec.perturbed.is_some() {
                "operands whose shapes disagree"
            } else if self.spec.window_past {
                "a window past its mode"
            } else {
                "an operand whose fill value is not the declared one"
            };
            if result.is_ok() {
                self.fail(Class::Wrong, format!("returned Ok(()) for {what}"));
            } else {
                let changed = self.changed_outputs();
                if !changed.is_empty() {
                    self.fail(
                        Class::Wrong,
                        format!(
                            "returned Err for {what} but changed outputs: {}",
                            changed.join("; ")
                        ),
                    );
                }
            }
            return;
        }
        if let Err(m) = result {
            self.fail(
                Class::Wrong,
                format!("returned Err for consistent shapes: {m}"),
            );
            return;
        }
        let k = self.kernel;
        if k.is_sequence() {
            self.check_sequence();
            return;
        }
        let Some(got) = self.got[k.out].clone() else {
            return;
        };
        let old = self.old[k.out].clone().unwrap_or_default();
        let ev = self.single_reference();
        let verdict = if k.dense_output() {
            reference::check_dense(k, &ev.points, &old, &got)
        } else {
            let old = reference::SparseOut {
                entries: old,
                fill: self.old_fill[k.out],
            };
            let got = reference::SparseOut {
                entries: got,
                fill: self.got_fill[k.out].unwrap_or(f64::NAN),
            };
            reference::check_sparse(k, &ev, &old, &got)
        };
        if let Err(d) = verdict {
            self.fail(Class::Wrong, d);
        }
    }

    /// Whether `+=`/`-=` into the output overflows an `i64` somewhere (`y_old + rhs`, with
    /// `y_old` at its fill value where it stores nothing): undefined, like any overflow.
    fn accumulation_overflows(&self) -> bool {
        let k = self.kernel;
        if !k.accumulate {
            return false;
        }
        let old = self.old[k.out].clone().unwrap_or_default();
        let old_fill = self.old_fill[k.out];
        self.single_reference().points.iter().any(|pt| {
            let o = old
                .iter()
                .find(|(c, _)| *c == pt.coord)
                .map_or(old_fill, |e| e.1);
            pt.value
                .is_some_and(|v| (o as i64).checked_add(v as i64).is_none())
        })
    }

    /// The reference's evaluation of a single-statement kernel on this case.
    fn single_reference(&self) -> reference::Evaluation {
        reference::evaluation(
            self.kernel,
            &self.spec.var_sizes,
            &self.stored,
            &self.spec.scalars,
        )
    }

    /// The reference's run of a kernel of several statements on this case.
    fn sequence_reference(&self) -> reference::SequenceResult {
        reference::evaluate_sequence(
            self.kernel,
            &self.spec.var_sizes,
            &self.stored,
            &self.spec.scalars,
        )
    }

    /// Compares every output of a kernel of several statements with the reference.
    fn check_sequence(&mut self) {
        let k = self.kernel;
        let want = self.sequence_reference();
        let mut errs = Vec::new();
        for (p, want) in want.outputs.iter().enumerate() {
            let (Some(want), Some(got)) = (want, &self.got[p]) else {
                continue;
            };
            if let Err(d) = reference::check_contents(k.vt, &k.params[p].name, want, got) {
                errs.push(d);
            }
        }
        if !errs.is_empty() {
            self.fail(Class::Wrong, errs.join("; "));
        }
    }
}

thread_local! {
    static CAPTURING: RefCell<Option<String>> = const { RefCell::new(None) };
    static CURRENT_KERNEL: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Installs (once) a panic hook that records the location of panics raised while a kernel
/// runs, instead of printing them; other panics go to the previous hook.
fn install_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let captured = CAPTURING.with(|c| {
                let mut c = c.borrow_mut();
                match c.as_mut() {
                    Some(slot) => {
                        *slot = info
                            .location()
                            .map(|l| format!(" at {}:{}", l.file(), l.line()))
                            .unwrap_or_default();
                        // One line on stderr, so that a panic that turns into an abort (a
                        // panic while unwinding) still leaves its message for the driver.
                        // (What `PanicHookInfo::payload_as_str` does, which needs Rust 1.91.)
                        let payload = info.payload();
                        let message = payload
                            .downcast_ref::<&str>()
                            .copied()
                            .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
                        eprintln!(
                            "[difftest] kernel {}: panic{slot}: {}",
                            CURRENT_KERNEL.with(|k| k.get()),
                            message.unwrap_or("(non-string payload)")
                        );
                        true
                    }
                    None => false,
                }
            });
            if !captured {
                previous(info);
            }
        }));
    });
}

/// Runs `f` on this thread with every parallel loop kept serial
/// (`sparse_runtime::parallel::with_min_rows(usize::MAX, ..)`), and folds in chunks of one
/// iteration, as [`in_parallel`] folds them: a fold's float sum depends on its chunks (never
/// on the threads), so the two runs must agree bit for bit.
pub fn in_serial<R>(f: impl FnOnce() -> R) -> R {
    use sparse_runtime::parallel::{with_fold_chunk, with_min_rows};
    with_min_rows(usize::MAX, || with_fold_chunk(1, f))
}

/// Runs `f` in a pool of three threads, with parallel loops split at every row
/// (`sparse_runtime::parallel::with_min_rows(1, ..)`) and folds at every iteration
/// (`with_fold_chunk(1, ..)`), so that small kernels run their rows on several threads too.
pub fn in_parallel<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    static POOL: std::sync::OnceLock<rayon::ThreadPool> = std::sync::OnceLock::new();
    let pool = POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .expect("a pool of three threads")
    });
    use sparse_runtime::parallel::{with_fold_chunk, with_min_rows};
    pool.install(|| with_min_rows(1, || with_fold_chunk(1, f)))
}

/// Runs `f`, turning a panic into `Err(message with location)`.
fn capture<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    CAPTURING.with(|c| *c.borrow_mut() = Some(String::new()));
    let r = catch_unwind(AssertUnwindSafe(f));
    let loc = CAPTURING
        .with(|c| c.borrow_mut().take())
        .unwrap_or_default();
    r.map_err(|p| format!("{}{loc}", gen::classify::payload_message(&*p)))
}

/// Runs kernel `id` (whose operands `call` builds) on all its data cases.
pub fn run_kernel(id: u64, call: CallFn) -> Report {
    CURRENT_KERNEL.with(|c| c.set(id));
    let k = gen::generate(id);
    let cases = data::cases(&k);
    let mut report = Report {
        id,
        cases: cases.len(),
        failures: Vec::new(),
    };
    for spec in &cases {
        let mut c = Case::new(&k, spec);
        let phase;
        match capture(|| call(&mut c)) {
            // An integer statement may overflow (the kernels check overflow) or divide by a
            // stored zero (a divisor's padding: `x(l, j)` of a `(Compressed, Dense)` row)
            // where the reference finds an undefined value, as Rust's `/` does.
            Err(msg)
                if k.vt == gen::kernel::ValTy::I64
                    && (msg.contains("overflow") || msg.contains("divide by zero"))
                    && c.phase == "in the kernel call"
                    && !spec.expect_err()
                    && if k.is_sequence() {
                        c.sequence_reference().undefined
                    } else {
                        c.single_reference().undefined() || c.accumulation_overflows()
                    } => {}
            Err(msg) => {
                phase = c.phase.clone();
                c.fail(Class::Panic, format!("panicked {phase}: {msg}"));
            }
            Ok(Err(Stop)) => {}
            Ok(Ok(())) => {
                if let Err(msg) = capture(|| c.check()) {
                    c.fail(Class::Panic, format!("panicked while checking: {msg}"));
                }
            }
        }
        let describe = spec.describe(&k);
        report
            .failures
            .extend(c.failures.into_iter().map(|(class, detail)| Failure {
                class,
                case: Some(describe.clone()),
                detail,
            }));
    }
    report
}

/// A guess at the defect class of a failing kernel (for `known_failures.txt` and findings),
/// from the compiler's verdict and the failures' classes and details.
pub fn defect_class(
    k: &Kernel,
    verdict: Option<&gen::classify::Verdict>,
    failures: &[(Class, String)],
) -> &'static str {
    use gen::classify::Verdict;
    use gen::semantics::Limitation;
    match verdict {
        Some(Verdict::CompilerPanic(m)) if m.contains("r#") => return "raw-ident-panic",
        Some(Verdict::CompilerPanic(_)) => return "compiler-panic",
        Some(Verdict::InternalError(_)) => return "internal-error",
        Some(Verdict::RefusedOutsideLimitations(_)) => return "refused-valid",
        Some(Verdict::RefusedForWrongReason(..)) => return "refused-wrong-reason",
        Some(Verdict::AcceptedBeyondRules(l)) if l.contains(&Limitation::OutputFormat) => {
            return "unassemblable-output"
        }
        Some(Verdict::AcceptedBeyondRules(_)) => return "accepted-beyond-rules",
        Some(Verdict::OtherWorkspace(..)) => return "workspace-placement",
        _ => {}
    }
    let has = |c: Class| failures.iter().any(|f| f.0 == c);
    let says = |s: &str| failures.iter().any(|f| f.1.contains(s));
    // Kernels of sparse array programming with a known defect's shape (see TESTING.md).
    if has(Class::Wrong) && !has(Class::Compile) {
        if remapped_with_fill(k) {
            return "remapped-fill";
        }
        if complemented_mask(k) {
            return "complement-mask";
        }
        let values = says("got ") || says("is missing");
        if values && filled(k) && gen::classify::loop_nests(k).is_some_and(|n| n > 1) {
            return "split-fill";
        }
    }
    let src = k.source();
    let tricky = [
        "p_", "end_", "c_", "r_", "begin_", "dim_", "_vals", "_levels", "_l", "pos_",
    ]
    .iter()
    .any(|t| src.contains(t))
        || k.var_names
            .iter()
            .any(|v| v.starts_with('t') || v.ends_with(char::is_numeric));
    if has(Class::Compile) {
        return if tricky {
            "name-collision"
        } else {
            "compile-error"
        };
    }
    if has(Class::InvalidInput) {
        return "from-entries-invalid";
    }
    if has(Class::Abort) {
        return "abort";
    }
    if has(Class::Panic) {
        return "panic";
    }
    if has(Class::InvalidOutput) {
        return "invalid-output";
    }
    if says("nothing contributes there") {
        return "explicit-zeros";
    }
    if says("stale value was left") || says("is missing") {
        return "dense-operand-in-sum";
    }
    if says("for operands whose shapes disagree") || says("Err for consistent") {
        return "shape-check";
    }
    if says("whose fill value is not the declared one") {
        return "fill-check";
    }
    if says("fill value") {
        return "fill-value";
    }
    "wrong-value"
}

/// Whether the kernel reads a remapped format (`Dia`, `Bcsr`, `Csb`) with a fill value
/// other than 0 (their unstored components are read as 0, or the fill value is summed over
/// the view's hidden coordinates).
fn remapped_with_fill(k: &Kernel) -> bool {
    k.params.iter().any(|p| {
        p.format().is_some_and(|f| f.hidden > 0)
            && p.fill
                .as_ref()
                .is_some_and(|f| f.value != gen::functions::Fill::ZERO)
    })
}

/// Whether a call with a declared `iterate(x & !m)` formula is in a kernel of two or more
/// index variables, or has a mask argument that reads a tensor with a `Hashed` level (such a
/// kernel computes nothing: known defect D).
fn complemented_mask(k: &Kernel) -> bool {
    use gen::kernel::Expr;
    let mut found = false;
    k.rhs.visit(&mut |e| {
        if let Expr::Call { func, args } = e {
            if func.iterate(&vec![false; args.len()]).is_some() {
                found |= k.rhs.vars().len() >= 2;
                args[1].visit(&mut |a| {
                    if let Expr::Access { param, .. } = a {
                        found |= k.params[*param]
                            .format()
                            .is_some_and(|f| f.kinds.contains(&gen::format::Kind::Hashed));
                    }
                });
            }
        }
    });
    found
}

/// Whether some input (or the output, for `+=`) has a fill value other than 0.
fn filled(k: &Kernel) -> bool {
    k.params.iter().any(|p| {
        p.fill
            .as_ref()
            .is_some_and(|f| f.value != gen::functions::Fill::ZERO)
    })
}

/// How many accepted kernels went through a workspace, and how many of those by schedule,
/// per accumulator (the sweep's and the CI test's third summary line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkspaceTally {
    /// Kernels that carry a schedule (accepted or not).
    pub scheduled: u64,
    /// Of those, the ones the compiler accepted.
    pub scheduled_accepted: u64,
    /// Accepted kernels computed through a dense / hash workspace.
    pub used: [u64; 2],
    /// Of those, the ones whose workspace a schedule asked for.
    pub by_schedule: [u64; 2],
}

impl WorkspaceTally {
    /// Counts one kernel: `accepted` when the compiler accepted it (and it ran), `workspace`
    /// the compiler's workspace.
    pub fn count(
        &mut self,
        k: &Kernel,
        accepted: bool,
        workspace: Option<gen::semantics::Placement>,
    ) {
        let scheduled = k.has_schedule();
        self.scheduled += u64::from(scheduled);
        self.scheduled_accepted += u64::from(scheduled && accepted);
        if let (true, Some(p)) = (accepted, workspace) {
            let at = match p.kind {
                gen::kernel::Accumulator::Dense => 0,
                gen::kernel::Accumulator::Hash => 1,
            };
            self.used[at] += 1;
            if scheduled {
                self.by_schedule[at] += 1;
            }
        }
    }

    /// `W of the A accepted kernels used a workspace (dense d, hash h), S of them by schedule
    /// (dense sd, hash sh); T kernels carried a schedule, U of them accepted`.
    pub fn line(&self, accepted: u64) -> String {
        let [d, h] = self.used;
        let [sd, sh] = self.by_schedule;
        format!(
            "{} of the {accepted} accepted kernels used a workspace (dense {d}, hash {h}), {} of \
             them by schedule (dense {sd}, hash {sh}); {} kernels carried a schedule, {} of them \
             accepted",
            d + h,
            sd + sh,
            self.scheduled,
            self.scheduled_accepted
        )
    }

    /// For the sweep's `state.txt`.
    pub fn save(&self) -> String {
        format!(
            "workspaces {} {} {} {} {} {}\n",
            self.scheduled,
            self.scheduled_accepted,
            self.used[0],
            self.used[1],
            self.by_schedule[0],
            self.by_schedule[1]
        )
    }

    /// Reads [`WorkspaceTally::save`]'s line, if `line` is one.
    pub fn load(line: &str) -> Option<WorkspaceTally> {
        let rest = line.strip_prefix("workspaces ")?;
        let n: Vec<u64> = rest
            .split_whitespace()
            .map(|w| w.parse().unwrap_or(0))
            .collect();
        let [a, b, c, d, e, f] = n[..] else {
            return None;
        };
        Some(WorkspaceTally {
            scheduled: a,
            scheduled_accepted: b,
            used: [c, d],
            by_schedule: [e, f],
        })
    }
}

/// Escapes a message onto one line.
pub fn one_line(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\n', "\\n")
}

/// Undoes [`one_line`].
pub fn from_one_line(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some(o) => out.push(o),
                None => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The main function of a batch process (see the sweep driver): runs the kernels named on the
/// command line (all of `table` if none), printing one `START id` line before each kernel, one
/// `FAIL id class escaped-case escaped-detail` line per failure (tab-separated) and one
/// `DONE id cases` line after it.
pub fn child_main(table: &[(u64, CallFn)]) {
    let ids: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("kernel ids"))
        .collect();
    for &(id, call) in table {
        if !ids.is_empty() && !ids.contains(&id) {
            continue;
        }
        println!("START {id}");
        let report = run_kernel(id, call);
        for f in &report.failures {
            println!(
                "FAIL\t{id}\t{}\t{}\t{}",
                f.class,
                one_line(f.case.as_deref().unwrap_or("")),
                one_line(&f.detail)
            );
        }
        println!("DONE {id} {}", report.cases);
    }
}
