//! Prefetch hints: ask the processor to bring a cache line in before a
//! step reads it. A recursive step knows its second half's operands (and
//! so its cache entry and nodes) before it runs the first half; hinting
//! them then lets their memory latency pass while the first half runs.
//! A hint reads nothing the program sees and never faults.

/// Hint that the cache line holding `*p` will be read soon (nothing on
/// targets without a prefetch instruction).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: `_mm_prefetch` is a hint: it never faults, whatever the
        // address, and changes no memory the program sees.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
