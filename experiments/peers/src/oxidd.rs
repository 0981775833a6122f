//! oxidd 0.13's BDDs with complement edges (`bcdd`), one thread: the
//! manager preallocates its inner nodes and collects when 95% are used.

use oxidd::bcdd::{BCDDFunction, BCDDManagerRef};
use oxidd::{BooleanFunction, BooleanFunctionQuant, BooleanOperator, Function, Manager, ManagerRef};

use crate::package::Package;

pub struct Oxidd {
    mref: BCDDManagerRef,
    vars: Vec<BCDDFunction>,
}

impl Oxidd {
    /// A manager of `nodes` inner nodes and `cache` apply-cache entries
    /// over `vars` variables.
    pub fn new(nodes: usize, cache: usize, vars: u32) -> Oxidd {
        let mref = oxidd::bcdd::new_manager(nodes, cache, 1);
        let vars = mref.with_manager_exclusive(|m| {
            let vars = m.add_vars(vars);
            vars.map(|v| BCDDFunction::var(m, v)).collect::<Result<Vec<_>, _>>().expect("room for the variables")
        });
        Oxidd { mref, vars }
    }
}

const OOM: &str = "oxidd ran out of nodes (--nodes)";

impl Package for Oxidd {
    type F = BCDDFunction;

    fn constant(&self, value: bool) -> BCDDFunction {
        self.mref.with_manager_shared(|m| if value { BCDDFunction::t(m) } else { BCDDFunction::f(m) })
    }

    fn var(&self, v: u32) -> BCDDFunction {
        self.vars[v as usize].clone()
    }

    fn not(&self, a: &BCDDFunction) -> BCDDFunction {
        a.not().expect(OOM)
    }

    fn and(&self, a: &BCDDFunction, b: &BCDDFunction) -> BCDDFunction {
        a.and(b).expect(OOM)
    }

    fn or(&self, a: &BCDDFunction, b: &BCDDFunction) -> BCDDFunction {
        a.or(b).expect(OOM)
    }

    fn equiv(&self, a: &BCDDFunction, b: &BCDDFunction) -> BCDDFunction {
        a.equiv(b).expect(OOM)
    }

    fn and_exists(&self, a: &BCDDFunction, b: &BCDDFunction, vars: &BCDDFunction) -> BCDDFunction {
        a.apply_exists(BooleanOperator::And, b, vars).expect(OOM)
    }

    fn split(&self, f: &BCDDFunction) -> Option<(u32, BCDDFunction, BCDDFunction)> {
        let level = f.with_manager_shared(|m, e| m.get_node(e).level());
        let (high, low) = f.cofactors()?;
        Some((level, low, high))
    }

    fn is_true(&self, f: &BCDDFunction) -> bool {
        f.valid()
    }

    fn nodes_held(&self) -> Option<u64> {
        Some(self.mref.with_manager_shared(|m| m.num_inner_nodes()) as u64)
    }

    fn gc_seconds(&self) -> Option<f64> {
        None
    }

    fn report(&self) -> String {
        let nodes = self.mref.with_manager_shared(|m| m.num_inner_nodes());
        format!("oxidd 0.13 (bcdd), inner nodes at the end {nodes}")
    }
}
