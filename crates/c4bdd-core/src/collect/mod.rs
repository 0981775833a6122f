pub(crate) mod gc;
pub(crate) mod reach;
