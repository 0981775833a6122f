//! CUDD 3.0.0, built from its public source with its own flags (`-O3`):
//! BDDs with complement edges, reference counts, a unique table per
//! variable that grows as it fills, collections when the dead nodes are many.

use std::ffi::{c_int, c_long, c_uint};

use crate::package::Package;

/// CUDD's `DdManager` and `DdNode`, used only behind pointers.
#[repr(C)]
pub struct DdManager {
    _opaque: [u8; 0],
}
#[repr(C)]
pub struct DdNode {
    _opaque: [u8; 0],
}

extern "C" {
    fn Cudd_Init(vars: c_uint, zvars: c_uint, slots: c_uint, cache: c_uint, memory: usize) -> *mut DdManager;
    fn Cudd_Quit(dd: *mut DdManager);
    fn Cudd_ReadOne(dd: *mut DdManager) -> *mut DdNode;
    fn Cudd_ReadLogicZero(dd: *mut DdManager) -> *mut DdNode;
    fn Cudd_bddIthVar(dd: *mut DdManager, v: c_int) -> *mut DdNode;
    fn Cudd_bddAnd(dd: *mut DdManager, f: *mut DdNode, g: *mut DdNode) -> *mut DdNode;
    fn Cudd_bddOr(dd: *mut DdManager, f: *mut DdNode, g: *mut DdNode) -> *mut DdNode;
    fn Cudd_bddXnor(dd: *mut DdManager, f: *mut DdNode, g: *mut DdNode) -> *mut DdNode;
    fn Cudd_bddAndAbstract(dd: *mut DdManager, f: *mut DdNode, g: *mut DdNode, cube: *mut DdNode) -> *mut DdNode;
    fn Cudd_Ref(n: *mut DdNode);
    fn Cudd_RecursiveDeref(dd: *mut DdManager, n: *mut DdNode);
    fn Cudd_IsConstant(n: *mut DdNode) -> c_int;
    fn Cudd_T(n: *mut DdNode) -> *mut DdNode;
    fn Cudd_E(n: *mut DdNode) -> *mut DdNode;
    fn Cudd_NodeReadIndex(n: *mut DdNode) -> c_uint;
    fn Cudd_ReadPeakLiveNodeCount(dd: *mut DdManager) -> c_int;
    fn Cudd_ReadGarbageCollections(dd: *mut DdManager) -> c_int;
    fn Cudd_ReadGarbageCollectionTime(dd: *mut DdManager) -> c_long;
    fn Cudd_ReadMemoryInUse(dd: *mut DdManager) -> usize;
}

/// `Cudd_Not` and `Cudd_Regular`, macros in C: the complement is the
/// pointer's lowest bit.
fn complement(n: *mut DdNode) -> *mut DdNode {
    (n as usize ^ 1) as *mut DdNode
}

fn regular(n: *mut DdNode) -> *mut DdNode {
    (n as usize & !1) as *mut DdNode
}

/// A CUDD function, referenced while it lives.
pub struct C {
    dd: *mut DdManager,
    node: *mut DdNode,
}

impl C {
    fn new(dd: *mut DdManager, node: *mut DdNode) -> C {
        assert!(!node.is_null(), "CUDD ran out of memory");
        // SAFETY: `node` is a function CUDD just returned.
        unsafe { Cudd_Ref(node) };
        C { dd, node }
    }
}

impl Clone for C {
    fn clone(&self) -> C {
        C::new(self.dd, self.node)
    }
}

impl Drop for C {
    fn drop(&mut self) {
        // SAFETY: `self.node` holds one reference, given back here.
        unsafe { Cudd_RecursiveDeref(self.dd, self.node) };
    }
}

impl PartialEq for C {
    fn eq(&self, other: &C) -> bool {
        self.node == other.node
    }
}

impl Eq for C {}

impl std::hash::Hash for C {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.node.hash(h)
    }
}

/// The package, set up.
pub struct Cudd {
    dd: *mut DdManager,
}

impl Cudd {
    /// A manager over `vars` variables whose unique table starts at
    /// `nodes / vars` slots a variable and whose cache starts at `cache`
    /// entries (CUDD grows both as it sees fit).
    pub fn new(nodes: usize, cache: usize, vars: u32) -> Cudd {
        let slots = (nodes / vars as usize).max(256) as c_uint;
        // SAFETY: a new manager; 0 lets CUDD size its memory from the machine's.
        let dd = unsafe { Cudd_Init(vars, 0, slots, cache as c_uint, 0) };
        assert!(!dd.is_null(), "CUDD's Cudd_Init failed");
        Cudd { dd }
    }
}

impl Drop for Cudd {
    fn drop(&mut self) {
        // SAFETY: every function is dropped before the package.
        unsafe { Cudd_Quit(self.dd) };
    }
}

impl Package for Cudd {
    type F = C;

    fn constant(&self, value: bool) -> C {
        // SAFETY: the manager's constants.
        C::new(self.dd, unsafe {
            if value {
                Cudd_ReadOne(self.dd)
            } else {
                Cudd_ReadLogicZero(self.dd)
            }
        })
    }

    fn var(&self, v: u32) -> C {
        // SAFETY: the variable was declared by `Cudd_Init`.
        C::new(self.dd, unsafe { Cudd_bddIthVar(self.dd, v as c_int) })
    }

    fn not(&self, a: &C) -> C {
        C::new(self.dd, complement(a.node))
    }

    fn and(&self, a: &C, b: &C) -> C {
        // SAFETY: operands are live functions of this manager (here and below).
        C::new(self.dd, unsafe { Cudd_bddAnd(self.dd, a.node, b.node) })
    }

    fn or(&self, a: &C, b: &C) -> C {
        // SAFETY: as above.
        C::new(self.dd, unsafe { Cudd_bddOr(self.dd, a.node, b.node) })
    }

    fn equiv(&self, a: &C, b: &C) -> C {
        // SAFETY: as above.
        C::new(self.dd, unsafe { Cudd_bddXnor(self.dd, a.node, b.node) })
    }

    fn and_exists(&self, a: &C, b: &C, vars: &C) -> C {
        // SAFETY: as above; `vars` is a cube.
        C::new(self.dd, unsafe { Cudd_bddAndAbstract(self.dd, a.node, b.node, vars.node) })
    }

    fn split(&self, f: &C) -> Option<(u32, C, C)> {
        // SAFETY: `f` is live; its node's children live while it does.
        unsafe {
            if Cudd_IsConstant(f.node) != 0 {
                return None;
            }
            let r = regular(f.node);
            let (mut low, mut high) = (Cudd_E(r), Cudd_T(r));
            if r != f.node {
                (low, high) = (complement(low), complement(high));
            }
            Some((Cudd_NodeReadIndex(r), C::new(self.dd, low), C::new(self.dd, high)))
        }
    }

    fn is_true(&self, f: &C) -> bool {
        // SAFETY: the manager's constant.
        f.node == unsafe { Cudd_ReadOne(self.dd) }
    }

    /// None: `Cudd_ReadNodeCount` clears CUDD's death row, which changes
    /// the run (on 7x4: 3 collections instead of 1, 14.0 s instead of
    /// 12.1 s); CUDD keeps its own peak.
    fn nodes_held(&self) -> Option<u64> {
        None
    }

    fn peak_nodes(&self) -> Option<u64> {
        // SAFETY: a plain query of the manager's statistics.
        Some(unsafe { Cudd_ReadPeakLiveNodeCount(self.dd) } as u64)
    }

    fn gc_seconds(&self) -> Option<f64> {
        // SAFETY: as above.
        Some(unsafe { Cudd_ReadGarbageCollectionTime(self.dd) } as f64 / 1e3)
    }

    fn report(&self) -> String {
        // SAFETY: plain queries of the manager's statistics.
        let (peak, gcs, gc_ms, bytes) = unsafe {
            (
                Cudd_ReadPeakLiveNodeCount(self.dd),
                Cudd_ReadGarbageCollections(self.dd),
                Cudd_ReadGarbageCollectionTime(self.dd),
                Cudd_ReadMemoryInUse(self.dd),
            )
        };
        format!(
            "CUDD 3.0.0, peak live nodes {peak}, {gcs} collections, GC {:.3} s, memory in use {:.1} MB",
            gc_ms as f64 / 1e3,
            bytes as f64 / 1e6
        )
    }
}
