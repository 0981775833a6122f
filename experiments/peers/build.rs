//! Link the C packages the features name.

fn main() {
    if std::env::var_os("CARGO_FEATURE_BUDDY").is_some() {
        println!("cargo:rustc-link-lib=static=bdd");
    }
    if std::env::var_os("CARGO_FEATURE_CUDD").is_some() {
        println!("cargo:rerun-if-env-changed=CUDD_DIR");
        let dir = std::env::var("CUDD_DIR").expect("the feature cudd needs CUDD_DIR: CUDD's built source tree");
        println!("cargo:rustc-link-search=native={dir}/cudd/.libs");
        println!("cargo:rustc-link-lib=static=cudd");
        println!("cargo:rustc-link-lib=m");
    }
}
