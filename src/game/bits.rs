//! Bitboard words for the search: `u64` for every board with
//! `width * (height + 1) <= 64` (7x6 takes 49 bits), `u128` for the rest.
//! One generic body serves both; the narrow word makes each shift and add a
//! single instruction.

use std::ops::{Add, BitAnd, BitOr, BitXor, Not, Shl, Shr, Sub};

/// An unsigned word used as a bitboard (the layout of [`super::board`]).
pub trait Bits:
    Copy
    + Eq
    + Ord
    + Default
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + Add<Output = Self>
    + Sub<Output = Self>
{
    /// Bits in the word.
    const BITS: u32;
    const ZERO: Self;
    const ONE: Self;
    /// The word's bits as `u128` (zero-extended).
    fn to_u128(self) -> u128;
    /// The low [`Bits::BITS`] bits of `x`.
    fn from_u128(x: u128) -> Self;
    fn ones(self) -> u32;
    fn wrapping_mul(self, other: Self) -> Self;
    /// The low `n` bits set (`n <= BITS`).
    fn low_mask(n: u32) -> Self {
        if n == Self::BITS {
            !Self::ZERO
        } else {
            (Self::ONE << n) - Self::ONE
        }
    }
}

macro_rules! bits {
    ($t:ty) => {
        impl Bits for $t {
            const BITS: u32 = <$t>::BITS;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            fn to_u128(self) -> u128 {
                self as u128
            }
            fn from_u128(x: u128) -> Self {
                x as $t
            }
            fn ones(self) -> u32 {
                self.count_ones()
            }
            fn wrapping_mul(self, other: Self) -> Self {
                <$t>::wrapping_mul(self, other)
            }
        }
    };
}

bits!(u64);
bits!(u128);
