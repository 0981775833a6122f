//! Link the C packages the features name.

fn main() {
    if std::env::var_os("CARGO_FEATURE_BUDDY").is_some() {
        println!("cargo:rustc-link-lib=static=bdd");
    }
}
