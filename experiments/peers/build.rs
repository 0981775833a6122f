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
    #[cfg(feature = "sylvan")]
    sylvan();
}

/// Compile the C shim against Sylvan's installed headers and link Sylvan
/// and Lace from SYLVAN_DIR (the prefix `cmake --install` wrote).
#[cfg(feature = "sylvan")]
fn sylvan() {
    println!("cargo:rerun-if-env-changed=SYLVAN_DIR");
    println!("cargo:rerun-if-changed=src/sylvan_shim.c");
    let dir =
        std::env::var("SYLVAN_DIR").expect("the feature sylvan needs SYLVAN_DIR: where Sylvan 1.8.1 is installed");
    cc::Build::new().file("src/sylvan_shim.c").include(format!("{dir}/include")).opt_level(3).compile("sylvan_shim");
    println!("cargo:rustc-link-search=native={dir}/lib");
    println!("cargo:rustc-link-lib=static=sylvan");
    println!("cargo:rustc-link-lib=static=lace");
    println!("cargo:rustc-link-lib=pthread");
    println!("cargo:rustc-link-lib=m");
}
