//! Solutions stored on disk, read in place: c4bdd's ([`solution`]), the
//! parts of a partitioned solve ([`partitioned`]) and the paper's
//! artifact's ([`artifact`]), all answering through [`table::SolutionTable`];
//! and the parts of a stored ply ([`parts`]).

use std::path::Path;

use crate::error::Result;
use crate::search::files::bad;
use artifact::ArtifactSolution;
use partitioned::PartitionedSolution;
use solution::Solution;
use table::SolutionTable;

pub mod artifact;
pub mod partitioned;
pub mod parts;
pub mod records9;
pub mod solution;
pub mod table;

/// Open the solution in `dir`: c4bdd's (a `manifest.json`), the parts of a
/// partitioned solve (a checkpoint folder with `parts/partition.json`) or
/// the paper's artifact's (`bdd_w*_h*_*.bin` files).
pub fn open_table(dir: &Path) -> Result<Box<dyn SolutionTable>> {
    if dir.join("manifest.json").exists() {
        return Ok(Box::new(Solution::open(dir)?));
    }
    if dir.join(crate::search::partition::PARTS_DIR).join("partition.json").exists() {
        return Ok(Box::new(PartitionedSolution::open(dir)?));
    }
    match ArtifactSolution::open(dir)? {
        Some(solution) => Ok(Box::new(solution)),
        None => Err(bad(
            dir,
            "holds neither a c4bdd solution (manifest.json) nor the paper's artifact's (bdd_w*_h*_*.bin files)",
        )),
    }
}
