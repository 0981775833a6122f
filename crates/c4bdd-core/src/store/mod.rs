pub(crate) mod huge;
pub(crate) mod index_table;
pub(crate) mod memory;
pub(crate) mod node;
pub(crate) mod pages;
pub(crate) mod shared_pages;
pub(crate) mod unique;
