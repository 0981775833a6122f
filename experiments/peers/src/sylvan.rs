//! Sylvan 1.8.1 (with Lace 1.4.1), built from its public source with its
//! own Release flags: BDDs with complement edges, operations run as Lace
//! tasks by a chosen number of worker threads, one node table that grows by
//! doubling at collections, an operation cache that grows with it, and
//! `sylvan_relnext`, the relational product that renames in place (the
//! relation over interleaved state and next-state variables): c4bdd's
//! default image.

use std::ffi::{c_uint, c_void};

use crate::package::{models_of, nodes_of, Package};

/// Sylvan's `BDD`: a node index with the complement in its highest bit.
type Bdd = u64;

const FALSE: Bdd = 0;
const TRUE: Bdd = 0x8000_0000_0000_0000;

extern "C" {
    fn shim_start(workers: c_uint, table_min: usize, table_max: usize, cache_min: usize, cache_max: usize);
    fn shim_stop();
    fn shim_run(f: extern "C" fn(*mut c_void), data: *mut c_void);
    fn shim_and(a: Bdd, b: Bdd) -> Bdd;
    fn shim_xor(a: Bdd, b: Bdd) -> Bdd;
    fn shim_and_exists(a: Bdd, b: Bdd, vars: Bdd) -> Bdd;
    fn shim_relnext(a: Bdd, rel: Bdd, vars: Bdd) -> Bdd;
    fn shim_relprev(rel: Bdd, set: Bdd, vars: Bdd) -> Bdd;
    fn shim_nodes_held() -> u64;
    fn shim_peak_nodes() -> u64;
    fn shim_gc_count() -> u64;
    fn shim_gc_seconds() -> f64;
    fn mtbdd_ithvar(v: u32) -> Bdd;
    fn mtbdd_getvar(f: Bdd) -> u32;
    fn mtbdd_getlow(f: Bdd) -> Bdd;
    fn mtbdd_gethigh(f: Bdd) -> Bdd;
    fn mtbdd_ref(f: Bdd) -> Bdd;
    fn mtbdd_deref(f: Bdd);
}

/// A Sylvan function, referenced while it lives (Sylvan's collections keep
/// what is referenced).
#[derive(PartialEq, Eq, Hash)]
pub struct S(Bdd);

impl S {
    fn new(f: Bdd) -> S {
        // SAFETY: `f` is a function Sylvan just returned.
        S(unsafe { mtbdd_ref(f) })
    }
}

impl Clone for S {
    fn clone(&self) -> S {
        S::new(self.0)
    }
}

impl Drop for S {
    fn drop(&mut self) {
        // SAFETY: `self.0` holds one reference, given back here.
        unsafe { mtbdd_deref(self.0) };
    }
}

/// The package, set up with its Lace workers.
pub struct Sylvan {
    workers: u32,
}

impl Sylvan {
    /// `workers` Lace workers (0: one per core), a node table of `nodes`
    /// entries that collections may double up to `max_nodes`, and an
    /// operation cache of `cache` entries that grows with the table (all
    /// rounded up to powers of two, as Sylvan needs).
    pub fn new(workers: u32, nodes: usize, max_nodes: usize, cache: usize) -> Sylvan {
        let nodes = nodes.next_power_of_two();
        let max_nodes = max_nodes.next_power_of_two().max(nodes);
        let cache = cache.next_power_of_two();
        let max_cache = (cache * (max_nodes / nodes)).max(cache);
        // SAFETY: Lace and Sylvan are started once, before any other call.
        unsafe { shim_start(workers, nodes, max_nodes, cache, max_cache) };
        Sylvan { workers }
    }
}

impl Sylvan {
    /// Run `f` as one Lace task, as Sylvan's own programs run: its
    /// operations then run on the calling worker, the other workers steal
    /// their spawned halves, and no operation pays for waking the workers.
    pub fn run<F: FnOnce() -> R, R>(&self, f: F) -> R {
        /// `f` and, once it ran, its result.
        struct Call<F, R>(Option<F>, Option<R>);
        extern "C" fn trampoline<F: FnOnce() -> R, R>(data: *mut c_void) {
            // SAFETY: `data` is the `Call` that `run` passed, alive until `shim_run` returns.
            let call = unsafe { &mut *(data as *mut Call<F, R>) };
            call.1 = Some((call.0.take().expect("called once"))());
        }
        let mut call: Call<F, R> = Call(Some(f), None);
        // SAFETY: the trampoline gets `call`, which outlives the task.
        unsafe { shim_run(trampoline::<F, R>, &mut call as *mut Call<F, R> as *mut c_void) };
        call.1.expect("the task ran")
    }
}

/// The top variable and cofactors of a node without taking references: for
/// walks that run no operation (only operations collect).
fn split_raw(f: &Bdd) -> Option<(u32, Bdd, Bdd)> {
    if *f == TRUE || *f == FALSE {
        return None;
    }
    // SAFETY: `f` is an internal node of a referenced function.
    unsafe { Some((mtbdd_getvar(*f), mtbdd_getlow(*f), mtbdd_gethigh(*f))) }
}

impl Drop for Sylvan {
    fn drop(&mut self) {
        // SAFETY: every function is dropped before the package.
        unsafe { shim_stop() };
    }
}

impl Package for Sylvan {
    const IN_PLACE: bool = true;
    const THREADED: bool = true;
    type F = S;

    fn constant(&self, value: bool) -> S {
        S::new(if value { TRUE } else { FALSE })
    }

    fn var(&self, v: u32) -> S {
        // SAFETY: a variable's function; Sylvan's levels are its variables.
        S::new(unsafe { mtbdd_ithvar(v) })
    }

    fn not(&self, a: &S) -> S {
        S::new(a.0 ^ TRUE)
    }

    fn and(&self, a: &S, b: &S) -> S {
        // SAFETY: operands are live functions (here and below).
        S::new(unsafe { shim_and(a.0, b.0) })
    }

    fn or(&self, a: &S, b: &S) -> S {
        // SAFETY: as above (Sylvan's `or` is this in C, a macro).
        S::new(unsafe { shim_and(a.0 ^ TRUE, b.0 ^ TRUE) } ^ TRUE)
    }

    fn equiv(&self, a: &S, b: &S) -> S {
        // SAFETY: as above.
        S::new(unsafe { shim_xor(a.0, b.0) } ^ TRUE)
    }

    fn and_exists(&self, a: &S, b: &S, vars: &S) -> S {
        // SAFETY: as above; `vars` is a cube.
        S::new(unsafe { shim_and_exists(a.0, b.0, vars.0) })
    }

    fn relnext(&self, a: &S, rel: &S, vars: &S) -> S {
        // SAFETY: as above.
        S::new(unsafe { shim_relnext(a.0, rel.0, vars.0) })
    }

    fn relprev(&self, rel: &S, set: &S, vars: &S) -> S {
        // SAFETY: as above.
        S::new(unsafe { shim_relprev(rel.0, set.0, vars.0) })
    }

    fn split(&self, f: &S) -> Option<(u32, S, S)> {
        // The low and high functions carry the node's complement.
        split_raw(&f.0).map(|(v, low, high)| (v, S::new(low), S::new(high)))
    }

    fn is_true(&self, f: &S) -> bool {
        f.0 == TRUE
    }

    /// Over the nodes themselves: Sylvan's references go through a shared
    /// hash table, too slow for a walk that keeps every node.
    fn models(&self, f: &S, step: u32, n: u32) -> u128 {
        models_of(&f.0, &split_raw, &|g| *g == TRUE, step, n)
    }

    fn nodes(&self, f: &S) -> u64 {
        nodes_of(&f.0, &split_raw)
    }

    /// The table's filled slots (garbage not yet collected included).
    fn nodes_held(&self) -> Option<u64> {
        // SAFETY: a count of the table, run as a Lace task.
        Some(unsafe { shim_nodes_held() })
    }

    /// The most of [`Package::nodes_held`] at the end of a ply and when a
    /// collection began (the table at its fullest).
    fn peak_nodes(&self) -> Option<u64> {
        // SAFETY: a plain read of the shim's record.
        Some(unsafe { shim_peak_nodes() })
    }

    fn gc_seconds(&self) -> Option<f64> {
        // SAFETY: as above.
        Some(unsafe { shim_gc_seconds() })
    }

    fn report(&self) -> String {
        // SAFETY: plain reads of the shim's records.
        let (peak, gcs, gc_s) = unsafe { (shim_peak_nodes(), shim_gc_count(), shim_gc_seconds()) };
        format!(
            "Sylvan 1.8.1, {} Lace workers, peak nodes in the table {peak}, {gcs} collections, GC {gc_s:.3} s",
            self.workers
        )
    }
}
