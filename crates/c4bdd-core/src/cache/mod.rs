pub(crate) mod computed;
pub(crate) mod split3;
