//! Which variables of cells the partitioned pass cuts each ply on.

use serde::{Deserialize, Serialize};

use super::MAX_CUT;
use crate::bdd::Var;
use crate::encoding::{Frame, StateSpace};
use crate::search::ply::transition::top_cell_vars;

/// The variables of cells each ply is cut on: `2^len` parts, part `p`
/// holding the states whose `k`-th cut variable equals bit `k` of `p`.
///
/// A cut low in the order (the middle columns of a column-wise order) leaves
/// parts that share fewer nodes than a cut on the top variables: the width
/// of a column-wise BDD lies in its middle columns, which a cut on the first
/// column leaves whole in every part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The first `K` variables of cells in the order (0: no cut, whole plies).
    Top(u8),
    /// These variables of cells, by the encoding's names (`cCrR`, column `C`
    /// and row `R` from 1, in the compressed encoding; `cCrRpP`, player
    /// `P`'s disc there, in the cellwise one), the first is bit 0.
    Cells(Vec<String>),
}

impl Cut {
    /// No cut: the whole-ply pass.
    pub const NONE: Cut = Cut::Top(0);

    /// How many variables the cut takes.
    pub fn len(&self) -> usize {
        match self {
            Cut::Top(k) => usize::from(*k),
            Cut::Cells(names) => names.len(),
        }
    }

    /// Whether this is no cut (whole plies).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The names of the cut's variables in `space`, bit 0 first; an error
    /// names a name that is not a cell's variable or comes twice.
    pub fn names(&self, space: &StateSpace) -> Result<Vec<String>, String> {
        match self {
            Cut::Top(k) => {
                let vars = top_cell_vars(space, Frame::A, usize::from(*k));
                Ok(vars.iter().map(|&v| space.arrangement[space.manager.level_of(v).0 as usize / 2].clone()).collect())
            }
            Cut::Cells(names) => {
                cell_vars(space, Frame::A, names)?;
                Ok(names.clone())
            }
        }
    }

    /// As part of a run's key: `K`, or the names joined by `-`.
    pub fn key(&self) -> String {
        match self {
            Cut::Top(k) => k.to_string(),
            Cut::Cells(names) => names.join("-"),
        }
    }
}

/// The variables of `frame` of the cells named `names`, in that order; an
/// error names the first name that is not a cell's variable or comes twice.
pub fn cell_vars(space: &StateSpace, frame: Frame, names: &[String]) -> Result<Vec<Var>, String> {
    let state_vars = space.encoding.state_vars();
    let mut vars = Vec::with_capacity(names.len());
    for name in names {
        let j = state_vars.iter().position(|v| v.cell.is_some() && v.name == *name).ok_or_else(|| {
            format!("{name} is not a variable of a cell of this board and encoding (cCrR: column C, row R; cCrRpP cellwise)")
        })?;
        let var = space.layout.var(frame, j);
        if vars.contains(&var) {
            return Err(format!("{name} comes twice"));
        }
        vars.push(var);
    }
    Ok(vars)
}

impl std::fmt::Display for Cut {
    /// As `--parts` reads it: `K`, or the names joined by `,`.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Cut::Top(k) => write!(f, "{k}"),
            Cut::Cells(names) => write!(f, "{}", names.join(",")),
        }
    }
}

impl std::str::FromStr for Cut {
    type Err = String;

    /// `K` (0 to [`MAX_CUT`]), or 1 to [`MAX_CUT`] names of cells separated
    /// by commas (checked against a board when the pass starts).
    fn from_str(s: &str) -> Result<Cut, String> {
        if s.bytes().all(|b| b.is_ascii_digit()) && !s.is_empty() {
            return match s.parse::<u8>() {
                Ok(k) if k <= MAX_CUT => Ok(Cut::Top(k)),
                _ => Err(format!("{s} must be 0 to {MAX_CUT}")),
            };
        }
        let names: Vec<String> = s.split(',').map(|n| n.trim().to_string()).collect();
        if names.iter().any(|n| n.is_empty() || !n.bytes().all(|b| b.is_ascii_alphanumeric())) {
            return Err(format!("{s:?}: expected a number of top variables or names of cells such as c4r1,c4r2"));
        }
        if names.len() > usize::from(MAX_CUT) {
            return Err(format!("{s}: {} names, at most {MAX_CUT}", names.len()));
        }
        Ok(Cut::Cells(names))
    }
}

impl Serialize for Cut {
    /// `K` as a number, names as `--parts` reads them.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Cut::Top(k) => s.serialize_u8(*k),
            Cut::Cells(_) => s.serialize_str(&self.to_string()),
        }
    }
}

impl<'de> Deserialize<'de> for Cut {
    /// A number of top variables or a string as `--parts` reads it.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Cut, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Top(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Top(k) => u8::try_from(k)
                .ok()
                .filter(|&k| k <= MAX_CUT)
                .map(Cut::Top)
                .ok_or_else(|| serde::de::Error::custom(format!("parts: {k} must be 0 to {MAX_CUT}"))),
            Raw::Text(s) => s.parse().map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_reads_a_number_or_names_and_prints_as_read() {
        assert_eq!("5".parse::<Cut>(), Ok(Cut::Top(5)));
        assert_eq!("0".parse::<Cut>(), Ok(Cut::NONE));
        let named: Cut = "c4r1,c4r2".parse().unwrap();
        assert_eq!(named, Cut::Cells(vec!["c4r1".into(), "c4r2".into()]));
        assert_eq!(named.to_string(), "c4r1,c4r2");
        assert_eq!(named.key(), "c4r1-c4r2");
        assert_eq!(named.len(), 2);
        for bad in ["13", "300", "c4r1,,c4r2", "", "c4 r1", "a,b,c,d,e,f,g,h,i,j,k,l,m"] {
            assert!(bad.parse::<Cut>().is_err(), "{bad:?} is refused");
        }
    }

    #[test]
    fn a_cut_round_trips_through_toml_as_a_number_or_a_string() {
        #[derive(Serialize, Deserialize, PartialEq, Debug)]
        struct Spec {
            parts: Cut,
        }
        for cut in [Cut::Top(4), Cut::Cells(vec!["c4r1".into(), "c3r2".into()])] {
            let text = toml::to_string(&Spec { parts: cut.clone() }).unwrap();
            assert_eq!(toml::from_str::<Spec>(&text).unwrap(), Spec { parts: cut });
        }
        assert!(toml::from_str::<Spec>("parts = 13").is_err());
        assert!(toml::from_str::<Spec>("parts = \"c4r1,\"").is_err());
    }
}
