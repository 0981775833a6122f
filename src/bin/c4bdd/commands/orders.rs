//! `c4bdd orders search` and `c4bdd orders rule`.

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::{BoardArgs, EncodingArgs, InputError, OrderSearchArgs, OrdersCommand};
use c4bdd::encoding::OrderRule;
use c4bdd::order_search::output::{Identity, SearchDir};
use c4bdd::order_search::{search, Evaluation, Measure, Observer, Phase, SearchSettings, Tried};
use c4bdd::run::Limits;

/// Run an `orders` subcommand.
pub fn run(command: OrdersCommand) -> Result<()> {
    match command {
        OrdersCommand::Search(args) => search_orders(args),
        OrdersCommand::Rule { board, encoding } => print_rule(&board, &encoding),
    }
}

/// `c4bdd orders rule`: the rule of an order, as TOML on standard output.
fn print_rule(board: &BoardArgs, encoding: &EncodingArgs) -> Result<()> {
    let size = board.size()?;
    let vars = encoding.encoding.build(size).state_vars();
    let levels = encoding.order.arrange(&vars, size, encoding.encoding)?;
    let mut rule = OrderRule::of_order(&levels, &vars);
    rule.about = Some(format!("read off {} on {size} {}", encoding.order.name(), encoding.encoding.name()));
    print!("{}", toml::to_string(&rule)?);
    Ok(())
}

/// Reports each candidate to the folder and the progress bar.
struct Progress<'a> {
    dir: &'a mut SearchDir,
    bar: ProgressBar,
    best: Option<u64>,
}

impl Observer for Progress<'_> {
    fn tried(&mut self, phase: Phase, how: &str, tried: &Tried) -> Result<()> {
        self.dir.tried(phase, how, tried)?;
        if let Some(c) = tried.evaluation.cost {
            self.best = Some(self.best.map_or(c, |b| b.min(c)));
        }
        self.bar.inc(1);
        self.bar.set_message(format!("best {}", self.best.map_or("-".into(), group)));
        Ok(())
    }
}

/// `c4bdd orders search`: checks, the search, its files and a summary.
fn search_orders(args: OrderSearchArgs) -> Result<()> {
    let size = args.board.size()?;
    let limits = Limits { max_nodes: args.max_nodes, ..Limits::default() };
    limits.check().map_err(|e| InputError(format!("--{}", e.replacen('_', "-", 1))))?;
    let vars = args.encoding.build(size).state_vars();
    args.start.arrange(&vars, size, args.encoding).map_err(|e| InputError(format!("--start: {e}")))?;
    let measure =
        Measure { size, encoding: args.encoding, pass: args.pass, cost: args.cost, max_nodes: args.max_nodes };
    let settings = SearchSettings {
        measure,
        start: args.start.clone(),
        strategy: args.strategy,
        grouping: args.grouping,
        evaluations: args.evaluations as usize,
        time: args.time,
        seed: args.seed,
        jobs: args.jobs as usize,
        node_factor: args.node_factor,
        bound: args.bound,
    };
    let (mut dir, stored) = SearchDir::open(&args.out, &Identity::of(&settings), &vars)?;
    let bar = ProgressBar::new(args.evaluations);
    bar.set_style(ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} orders, {msg}")?);
    let began = std::time::Instant::now();
    let mut progress = Progress { dir: &mut dir, bar, best: None };
    let outcome = search(&settings, stored, &mut progress)?;
    progress.bar.finish_and_clear();
    let finished: Vec<&[usize]> =
        outcome.ranked.iter().filter(|(_, e)| e.cost.is_some()).take(args.keep as usize).map(|(l, _)| &l[..]).collect();
    let (mut rule, rule_eval) = outcome.rule;
    let best = &outcome.ranked[0].1;
    rule.about = Some(format!(
        "read off the best order of `c4bdd orders search` on {size} {} ({} of a {}: {})",
        args.encoding.name(),
        args.cost.about(),
        args.pass,
        best.cost.map_or("-".into(), group)
    ));
    let written = dir.finish(&finished, &rule)?;
    let start_cost = outcome.start.1.cost.expect("the start finished");
    let cut = outcome.ranked.iter().filter(|(_, e)| e.cut_at.is_some()).count();
    let cut = if cut > 0 { format!(" ({cut} stopped once past the best)") } else { String::new() };
    // A resumed search's evaluations were mostly run by earlier processes:
    // their measured time is said beside this process's.
    let measured: f64 = outcome.ranked.iter().map(|(_, e)| e.time_s).sum();
    println!(
        "{size} {}, {} of a {}: {} orders evaluated{cut} in {:.1} s ({measured:.1} s of evaluations, those taken \
         up from an earlier run of the search included)",
        args.encoding.name(),
        args.cost.about(),
        args.pass,
        outcome.evaluations,
        began.elapsed().as_secs_f64()
    );
    println!("start  {:>14}  {}", group(start_cost), args.start.name());
    println!("best   {:>14}  {}", line(best, start_cost), written[0].display());
    println!("rule   {:>14}  {}", line(&rule_eval, start_cost), written[written.len() - 1].display());
    Ok(())
}

/// A cost beside the start's, e.g. `1,234 (-10.0%)`.
fn line(e: &Evaluation, start: u64) -> String {
    match (e.cost, e.cut_at) {
        (Some(c), _) => format!("{} ({:+.1}%)", group(c), (c as f64 / start as f64 - 1.0) * 100.0),
        (None, Some(ply)) => format!("above the best by ply {ply}"),
        (None, None) => "node limit".into(),
    }
}

/// `n` with thousands separated by commas.
fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}
