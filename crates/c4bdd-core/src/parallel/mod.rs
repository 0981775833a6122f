pub(crate) mod pool;
pub(crate) mod recursor;
