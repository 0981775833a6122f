//! The crate's example program, run: N-queens counted with BDDs against the
//! known numbers of solutions (OEIS A000170).

#[path = "../../examples/queens.rs"]
#[allow(dead_code)]
mod queens;

#[test]
fn the_queens_example_counts_the_known_solutions() {
    let known: [u128; 9] = [1, 0, 0, 2, 10, 4, 40, 92, 352];
    for (n, &count) in (1..=9).zip(&known) {
        assert_eq!(queens::solutions(n).unwrap().0, count, "{n} queens");
    }
}
