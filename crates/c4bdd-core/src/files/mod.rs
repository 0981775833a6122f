pub(crate) mod io;
pub(crate) mod records9;
pub(crate) mod stored;
