//! BuDDy 2.4 (Debian's libbdd-dev): no complement edges, a node table it
//! allocates up front and grows when a collection frees too little, an
//! operator cache of a size set at the start.

use std::ffi::c_int;

use crate::package::Package;

#[link(name = "bdd", kind = "static")]
extern "C" {
    fn bdd_init(nodes: c_int, cache: c_int) -> c_int;
    fn bdd_done();
    fn bdd_setvarnum(n: c_int) -> c_int;
    fn bdd_setmaxincrease(n: c_int) -> c_int;
    fn bdd_gbc_hook(handler: Option<extern "C" fn(c_int, *mut GbcStat)>) -> Option<extern "C" fn(c_int, *mut GbcStat)>;
    fn bdd_ithvar(v: c_int) -> c_int;
    fn bdd_not(a: c_int) -> c_int;
    fn bdd_apply(a: c_int, b: c_int, op: c_int) -> c_int;
    fn bdd_appex(a: c_int, b: c_int, op: c_int, vars: c_int) -> c_int;
    fn bdd_var(a: c_int) -> c_int;
    fn bdd_low(a: c_int) -> c_int;
    fn bdd_high(a: c_int) -> c_int;
    fn bdd_addref(a: c_int) -> c_int;
    fn bdd_delref(a: c_int) -> c_int;
    fn bdd_getnodenum() -> c_int;
    fn bdd_getallocnum() -> c_int;
    fn bdd_errstring(e: c_int) -> *const std::ffi::c_char;
}

/// BuDDy's `bddGbcStat`.
#[repr(C)]
pub struct GbcStat {
    nodes: c_int,
    freenodes: c_int,
    time: std::ffi::c_long,
    sumtime: std::ffi::c_long,
    num: c_int,
}

/// `bddop_and`, `bddop_or`, `bddop_biimp`.
const AND: c_int = 0;
const OR: c_int = 2;
const BIIMP: c_int = 6;

/// A BuDDy function, referenced while it lives.
#[derive(PartialEq, Eq, Hash)]
pub struct B(c_int);

impl B {
    fn new(root: c_int) -> B {
        if root < 0 {
            // SAFETY: BuDDy returns a static message for each error code.
            let message = unsafe { std::ffi::CStr::from_ptr(bdd_errstring(root)) };
            panic!("BuDDy: {}", message.to_string_lossy());
        }
        // SAFETY: `root` is a node BuDDy just returned.
        B(unsafe { bdd_addref(root) })
    }
}

impl Clone for B {
    fn clone(&self) -> B {
        // SAFETY: `self.0` is a live, referenced node.
        B(unsafe { bdd_addref(self.0) })
    }
}

impl Drop for B {
    fn drop(&mut self) {
        // SAFETY: `self.0` holds one reference, given back here.
        unsafe { bdd_delref(self.0) };
    }
}

/// Collections and their time, as BuDDy's hook reports them.
static GC: std::sync::Mutex<(u64, f64)> = std::sync::Mutex::new((0, 0.0));

extern "C" fn on_gc(pre: c_int, stat: *mut GbcStat) {
    if pre == 0 {
        // SAFETY: BuDDy passes its statistics, valid during the call.
        let stat = unsafe { &*stat };
        *GC.lock().unwrap() = (stat.num as u64, stat.sumtime as f64 / 1e6);
    }
}

/// The package, set up.
pub struct Buddy;

impl Buddy {
    /// A node table of `nodes` nodes (grown as BuDDy sees fit) and an
    /// operator cache of `cache` entries over `vars` variables.
    pub fn new(nodes: usize, cache: usize, vars: u32) -> Buddy {
        // SAFETY: the library is set up once, before any other call.
        unsafe {
            assert_eq!(bdd_init(nodes as c_int, cache as c_int), 0, "BuDDy's bdd_init failed");
            bdd_gbc_hook(Some(on_gc));
            // Grow the table by doubling, as c4bdd and CUDD do (BuDDy: at most 50,000 nodes a time).
            bdd_setmaxincrease(0);
            assert_eq!(bdd_setvarnum(vars as c_int), 0, "BuDDy's bdd_setvarnum failed");
        }
        Buddy
    }
}

impl Drop for Buddy {
    fn drop(&mut self) {
        // SAFETY: every function is dropped before the package (they are
        // locals of the run, the package outlives them).
        unsafe { bdd_done() };
    }
}

impl Package for Buddy {
    type F = B;

    fn constant(&self, value: bool) -> B {
        B(c_int::from(value))
    }

    fn var(&self, v: u32) -> B {
        // SAFETY: the variable was declared by `bdd_setvarnum`.
        B::new(unsafe { bdd_ithvar(v as c_int) })
    }

    fn not(&self, a: &B) -> B {
        // SAFETY: operands are live functions (here and below).
        B::new(unsafe { bdd_not(a.0) })
    }

    fn and(&self, a: &B, b: &B) -> B {
        // SAFETY: as above.
        B::new(unsafe { bdd_apply(a.0, b.0, AND) })
    }

    fn or(&self, a: &B, b: &B) -> B {
        // SAFETY: as above.
        B::new(unsafe { bdd_apply(a.0, b.0, OR) })
    }

    fn equiv(&self, a: &B, b: &B) -> B {
        // SAFETY: as above.
        B::new(unsafe { bdd_apply(a.0, b.0, BIIMP) })
    }

    fn and_exists(&self, a: &B, b: &B, vars: &B) -> B {
        // SAFETY: as above.
        B::new(unsafe { bdd_appex(a.0, b.0, AND, vars.0) })
    }

    fn split(&self, f: &B) -> Option<(u32, B, B)> {
        if f.0 < 2 {
            return None;
        }
        // SAFETY: `f` is a live internal node.
        unsafe { Some((bdd_var(f.0) as u32, B::new(bdd_low(f.0)), B::new(bdd_high(f.0)))) }
    }

    fn is_true(&self, f: &B) -> bool {
        f.0 == 1
    }

    fn nodes_held(&self) -> Option<u64> {
        // SAFETY: a plain query of the table.
        Some(unsafe { bdd_getnodenum() } as u64)
    }

    fn gc_seconds(&self) -> Option<f64> {
        Some(GC.lock().unwrap().1)
    }

    fn report(&self) -> String {
        // SAFETY: plain queries of the table's size.
        let (live, table) = unsafe { (bdd_getnodenum(), bdd_getallocnum()) };
        let (gcs, gc_s) = *GC.lock().unwrap();
        format!("BuDDy 2.4, live nodes at the end {live}, node table {table}, {gcs} collections, GC {gc_s:.3} s")
    }
}
