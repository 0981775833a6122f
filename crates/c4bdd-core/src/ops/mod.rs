pub(crate) mod apply;
pub(crate) mod bfs;
pub(crate) mod count;
pub(crate) mod level_map;
pub(crate) mod minimize;
pub(crate) mod pairing;
pub(crate) mod quant;
pub(crate) mod split3;
