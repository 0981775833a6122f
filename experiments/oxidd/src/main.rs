//! The forward count of c4bdd (`c4bdd count`, compressed encoding, column-wise
//! order) on the oxidd crate's BDDs with complement edges, one thread: the
//! reference point of c4bdd's speed goal "faster than oxidd on the same board
//! and strategy". The strategy is the paper's: one monolithic relation per
//! player, frames A and B alternating per ply, the image by oxidd's combined
//! conjunction and quantification, and one BDD of all winning lines per frame,
//! subtracted before each image. Prints one line per ply (ply, positions) and
//! the total, so that the counts can be compared with c4bdd's.

use std::time::Instant;

use clap::Parser;
use oxidd::bcdd::BCDDFunction;
use oxidd::util::{AllocResult, SatCountCache};
use oxidd::{BooleanFunction, BooleanFunctionQuant, BooleanOperator, Manager, ManagerRef};

#[derive(Parser)]
#[command(about = "Count every position of a Connect Four board, ply by ply, with oxidd")]
struct Args {
    /// Number of columns.
    #[arg(short = 'W', long, value_parser = clap::value_parser!(u32).range(1..=13))]
    width: u32,
    /// Number of rows.
    #[arg(short = 'H', long, value_parser = clap::value_parser!(u32).range(1..=13))]
    height: u32,
    /// Inner nodes the manager holds (preallocated; it collects garbage when 95% full).
    #[arg(long, default_value_t = 1 << 24)]
    nodes: usize,
    /// Entries of the apply cache.
    #[arg(long, default_value_t = 1 << 24)]
    cache: usize,
    /// Image computation, as c4bdd's `--image`: one relation per player, or
    /// one per column whose images are joined.
    #[arg(long, value_enum, default_value_t = Image::Monolithic)]
    image: Image,
    /// Terminal states, as c4bdd's `--terminal`: one BDD of all lines, or
    /// each line subtracted on its own.
    #[arg(long, value_enum, default_value_t = Terminal::Whole)]
    terminal: Terminal,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Image {
    Monolithic,
    Columns,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Terminal {
    Whole,
    Lines,
}

/// The board and its compressed encoding: state variable `k = col * (h + 1) + row`
/// (rows `0..=h`; per column the discs' colours, true for the first player,
/// below a true marker, false above it), then side to move (`k = w * (h + 1)`,
/// true when the first player moves). Variable `2k` is state variable `k` in
/// frame A, `2k + 1` the same in frame B, so the order is column-wise with the
/// frames interleaved, as in c4bdd.
struct Board {
    w: u32,
    h: u32,
}

impl Board {
    fn k(&self, col: u32, row: u32) -> u32 {
        col * (self.h + 1) + row
    }

    fn stm(&self) -> u32 {
        self.w * (self.h + 1)
    }

    fn state_vars(&self) -> u32 {
        self.stm() + 1
    }

    fn var(&self, frame: u32, k: u32) -> u32 {
        2 * k + frame
    }

    /// Every line of four cells: horizontal, vertical and both diagonals.
    fn lines(&self) -> Vec<[(u32, u32); 4]> {
        let (w, h) = (self.w as i32, self.h as i32);
        let mut lines = Vec::new();
        for (dc, dr) in [(1, 0), (0, 1), (1, 1), (1, -1)] {
            for c in 0..w {
                for r in 0..h {
                    let cells: Vec<(i32, i32)> = (0..4).map(|i| (c + i * dc, r + i * dr)).collect();
                    if cells.iter().all(|&(c, r)| (0..w).contains(&c) && (0..h).contains(&r)) {
                        lines.push(std::array::from_fn(|i| (cells[i].0 as u32, cells[i].1 as u32)));
                    }
                }
            }
        }
        lines
    }
}

/// BDD building from the variables' functions (an operation on functions
/// takes the manager's lock itself, so building happens outside
/// `with_manager_exclusive`).
struct Builder<'a> {
    b: &'a Board,
    /// Each variable's function, by variable number.
    vars: Vec<BCDDFunction>,
    f: BCDDFunction,
    t: BCDDFunction,
}

impl Builder<'_> {
    fn lit(&self, frame: u32, k: u32, value: bool) -> AllocResult<BCDDFunction> {
        let v = self.vars[self.b.var(frame, k) as usize].clone();
        if value {
            Ok(v)
        } else {
            v.not()
        }
    }

    fn cube(&self, frame: u32, lits: &[(u32, bool)]) -> AllocResult<BCDDFunction> {
        let mut acc = self.t.clone();
        for &(k, value) in lits.iter().rev() {
            acc = acc.and(&self.lit(frame, k, value)?)?;
        }
        Ok(acc)
    }

    /// `A_k ↔ B_k` for every `k` of `ks`.
    fn identity(&self, ks: &[u32]) -> AllocResult<BCDDFunction> {
        let mut acc = self.t.clone();
        for &k in ks.iter().rev() {
            acc = acc.and(&self.lit(0, k, true)?.equiv(&self.lit(1, k, true)?)?)?;
        }
        Ok(acc)
    }

    /// The empty board, first player to move, in frame A.
    fn initial(&self) -> AllocResult<BCDDFunction> {
        let b = self.b;
        let mut lits = vec![(b.stm(), true)];
        for col in 0..b.w {
            for row in 0..=b.h {
                lits.push((b.k(col, row), row == 0));
            }
        }
        self.cube(0, &lits)
    }

    /// The moves of `first` (the first player, or not) from `from` into the
    /// other frame, one relation per column.
    fn moves(&self, from: u32, first: bool) -> AllocResult<Vec<BCDDFunction>> {
        let (b, to) = (self.b, 1 - from);
        let mut all = Vec::new();
        for col in 0..b.w {
            let mut column = self.f.clone();
            for height in 0..b.h {
                let pre: Vec<(u32, bool)> = (height..=b.h).map(|r| (b.k(col, r), r == height)).collect();
                let eff: Vec<(u32, bool)> = (height..=b.h)
                    .map(|r| (b.k(col, r), if r == height { first } else { r == height + 1 }))
                    .collect();
                let below: Vec<u32> = (0..height).map(|r| b.k(col, r)).collect();
                let one = self.cube(from, &pre)?.and(&self.cube(to, &eff)?)?.and(&self.identity(&below)?)?;
                column = column.or(&one)?;
            }
            let outside: Vec<u32> =
                (0..b.w).filter(|&c| c != col).flat_map(|c| (0..=b.h).map(move |r| b.k(c, r))).collect();
            let stm = self.cube(from, &[(b.stm(), first)])?.and(&self.cube(to, &[(b.stm(), !first)])?)?;
            all.push(column.and(&stm)?.and(&self.identity(&outside)?)?);
        }
        Ok(all)
    }

    /// States in `frame` where `first` (the first player, or not) has four
    /// in a row, one BDD per line.
    fn terminal(&self, frame: u32, first: bool) -> AllocResult<Vec<BCDDFunction>> {
        let b = self.b;
        let mut any = Vec::new();
        for line in b.lines() {
            let mut all = self.t.clone();
            for (c, r) in line {
                // The cell holds the player's colour below the column's marker.
                let mut above = self.f.clone();
                for rr in r + 1..=b.h {
                    above = above.or(&self.lit(frame, b.k(c, rr), true)?)?;
                }
                all = all.and(&self.lit(frame, b.k(c, r), first)?.and(&above)?)?;
            }
            any.push(all);
        }
        Ok(any)
    }

    /// The disjunction of `fs`.
    fn or_all(&self, fs: Vec<BCDDFunction>) -> AllocResult<Vec<BCDDFunction>> {
        let mut acc = self.f.clone();
        for f in fs {
            acc = acc.or(&f)?;
        }
        Ok(vec![acc])
    }

    /// The conjunction of a frame's variables (to quantify them).
    fn frame_vars(&self, frame: u32) -> AllocResult<BCDDFunction> {
        let lits: Vec<(u32, bool)> = (0..self.b.state_vars()).map(|k| (k, true)).collect();
        self.cube(frame, &lits)
    }
}

fn main() -> AllocResult<()> {
    let args = Args::parse();
    let board = Board { w: args.width, h: args.height };
    let start = Instant::now();
    let mref = oxidd::bcdd::new_manager(args.nodes, args.cache, 1);
    // Per ply parity p (the first player moves from even plies): the moves
    // from frame p, the terminal states of frame p (the player who just
    // moved has four in a row), and frame p's variables.
    let b = mref.with_manager_exclusive(|m| {
        let vars = m.add_vars(2 * board.state_vars());
        let vars = vars.map(|v| BCDDFunction::var(m, v)).collect::<AllocResult<Vec<_>>>()?;
        Ok::<_, oxidd::util::OutOfMemory>(Builder { b: &board, vars, f: BCDDFunction::f(m), t: BCDDFunction::t(m) })
    })?;
    let mut moves = [b.moves(0, true)?, b.moves(1, false)?];
    let mut terminal = [b.terminal(0, false)?, b.terminal(1, true)?];
    for p in 0..2 {
        if args.image == Image::Monolithic {
            moves[p] = b.or_all(std::mem::take(&mut moves[p]))?;
        }
        if args.terminal == Terminal::Whole {
            terminal[p] = b.or_all(std::mem::take(&mut terminal[p]))?;
        }
    }
    let vars = [b.frame_vars(0)?, b.frame_vars(1)?];
    let initial = b.initial()?;
    let total_vars = 2 * board.state_vars();
    let mut counts = SatCountCache::<u128, std::hash::RandomState>::default();
    let mut states = initial;
    let mut total: u128 = 0;
    let cells = board.w * board.h;
    for ply in 0..=cells {
        // A state set mentions one frame: each of its states is counted once
        // per assignment of the other frame's variables.
        let positions = states.sat_count(total_vars, &mut counts) >> board.state_vars();
        println!("{ply} {positions}");
        total += positions;
        if ply == cells {
            break;
        }
        let p = (ply % 2) as usize;
        let mut alive = states;
        for t in &terminal[p] {
            alive = alive.and(&t.not()?)?;
        }
        states = b.f.clone();
        for rel in &moves[p] {
            states = states.or(&alive.apply_exists(BooleanOperator::And, rel, &vars[p])?)?;
        }
    }
    let time = start.elapsed().as_secs_f64();
    let nodes = mref.with_manager_shared(|m| m.num_inner_nodes());
    println!("total positions: {total}");
    println!("time {time:.3} s, inner nodes at the end {nodes}");
    Ok(())
}
