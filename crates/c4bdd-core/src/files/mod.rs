pub(crate) mod io;
pub(crate) mod stored;
