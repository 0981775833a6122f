pub(crate) mod io;
mod levels;
mod records;
pub(crate) mod stored;
