//! Enums of settings with one table of names. `named_enum!` declares the
//! enum and its table ([`Named::VALUES`]); `Display`, `FromStr`, serde and
//! the binary's command-line parsers all read that table, so a value is
//! written to results/ under the name the command line takes, and an
//! archive's names read back.

/// One value of a [`Named`] enum.
#[derive(Debug)]
pub struct NamedValue<T: 'static> {
    pub value: T,
    /// The name written and read.
    pub name: &'static str,
    /// Further names read as this value, never written.
    pub aliases: &'static [&'static str],
    /// The variant's doc comment, one entry a line.
    pub doc: &'static [&'static str],
}

impl<T> NamedValue<T> {
    /// The doc comment's first paragraph on one line, without its final
    /// full stop: the value's help on the command line.
    pub fn help(&self) -> String {
        let lines: Vec<&str> = self.doc.iter().map(|l| l.trim()).take_while(|l| !l.is_empty()).collect();
        let text = lines.join(" ");
        text.strip_suffix('.').unwrap_or(&text).to_string()
    }
}

/// An enum whose values each have one name.
///
/// Invariant: the names and aliases of [`Named::VALUES`] are distinct, and
/// every value of the enum appears there once (`named_enum!` lists each
/// variant exactly once).
pub trait Named: Copy + Eq + Sized + 'static {
    /// What the values are, for messages ("encoding").
    const WHAT: &'static str;
    /// Every value in declaration order.
    const VALUES: &'static [NamedValue<Self>];

    /// The value's name.
    fn name(self) -> &'static str {
        Self::VALUES.iter().find(|v| v.value == self).expect("every value is in the table").name
    }

    /// Every value, in declaration order.
    fn all() -> impl Iterator<Item = Self> {
        Self::VALUES.iter().map(|v| v.value)
    }

    /// The value of a name or alias; the error names the text and the names.
    fn from_name(s: &str) -> Result<Self, String> {
        Self::VALUES.iter().find(|v| v.name == s || v.aliases.contains(&s)).map(|v| v.value).ok_or_else(|| {
            let names: Vec<&str> = Self::VALUES.iter().map(|v| v.name).collect();
            format!("unknown {} '{s}' (expected one of {})", Self::WHAT, names.join(", "))
        })
    }
}

/// Serialize a [`Named`] value as its name.
pub fn serialize<T: Named, S: serde::Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(value.name())
}

/// Deserialize a [`Named`] value from its name or an alias.
pub fn deserialize<'de, T: Named, D: serde::Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    struct Visitor<T>(std::marker::PhantomData<T>);
    impl<T: Named> serde::de::Visitor<'_> for Visitor<T> {
        type Value = T;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "the name of a {}", T::WHAT)
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<T, E> {
            T::from_name(s).map_err(E::custom)
        }
    }
    d.deserialize_str(Visitor(std::marker::PhantomData))
}

/// Declare an enum of unit variants with one name each (`Variant = "name"`,
/// aliases after `|`), what its values are for messages and an optional
/// default (`enum E ("what", default Variant)`), and doc comments on the enum
/// and on each variant (the first paragraph is the value's help). It
/// implements [`Named`], `Display` (padded), `FromStr`, `Serialize`,
/// `Deserialize`, `Default` when one is named, and derives `Clone`, `Copy`,
/// `Debug`, `PartialEq`, `Eq`, `PartialOrd`, `Ord`, `Hash`.
macro_rules! named_enum {
    (
        $(#[doc = $edoc:literal])*
        $vis:vis enum $name:ident ($what:literal $(, default $def:ident)?) {
            $(
                $(#[doc = $doc:literal])*
                $variant:ident = $vname:literal $(| $alias:literal)*
            ),+ $(,)?
        }
    ) => {
        $(#[doc = $edoc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        $vis enum $name {
            $( $(#[doc = $doc])* $variant, )+
        }

        impl $crate::named::Named for $name {
            const WHAT: &'static str = $what;
            const VALUES: &'static [$crate::named::NamedValue<Self>] = &[$(
                $crate::named::NamedValue {
                    value: $name::$variant,
                    name: $vname,
                    aliases: &[$($alias),*],
                    doc: &[$($doc),*],
                },
            )+];
        }

        impl $name {
            /// The value's name (its [`Named`](crate::named::Named) table's).
            pub fn name(self) -> &'static str {
                $crate::named::Named::name(self)
            }

            /// Every value, in declaration order.
            pub fn all() -> impl Iterator<Item = $name> {
                <$name as $crate::named::Named>::all()
            }
        }

        $(impl Default for $name {
            fn default() -> $name {
                $name::$def
            }
        })?

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.pad($crate::named::Named::name(*self))
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<$name, String> {
                <$name as $crate::named::Named>::from_name(s)
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $crate::named::serialize(self, s)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$name, D::Error> {
                $crate::named::deserialize(d)
            }
        }
    };
}
pub(crate) use named_enum;

impl Named for crate::bdd::GcCache {
    const WHAT: &'static str = "GC cache policy";
    const VALUES: &'static [NamedValue<Self>] = &[gc_cache(Self::Keep), gc_cache(Self::Clear)];
}

impl Named for crate::bdd::Traversal {
    const WHAT: &'static str = "traversal";
    const VALUES: &'static [NamedValue<Self>] = &[traversal(Self::DepthFirst), traversal(Self::BreadthFirst)];
}

/// A traversal under the core's name.
const fn traversal(value: crate::bdd::Traversal) -> NamedValue<crate::bdd::Traversal> {
    NamedValue { value, name: value.name(), aliases: &[], doc: &[] }
}

/// A GC cache policy under the core's name.
const fn gc_cache(value: crate::bdd::GcCache) -> NamedValue<crate::bdd::GcCache> {
    NamedValue { value, name: value.name(), aliases: &[], doc: &[] }
}

#[cfg(test)]
mod tests {
    use super::Named;

    named_enum! {
        /// A test enum.
        enum Colour ("colour", default Red) {
            /// Warm.
            /// Second line.
            ///
            /// Second paragraph.
            Red = "red" | "rouge",
            Blue = "blue",
        }
    }

    #[test]
    fn names_parse_print_and_serialize_from_one_table() {
        assert_eq!(Colour::default(), Colour::Red);
        assert_eq!(Colour::Blue.name(), "blue");
        assert_eq!(Colour::all().collect::<Vec<_>>(), [Colour::Red, Colour::Blue]);
        assert_eq!(format!("{:>5}|{}", Colour::Red, Colour::Blue), "  red|blue");
        assert_eq!("rouge".parse::<Colour>(), Ok(Colour::Red));
        assert_eq!("green".parse::<Colour>(), Err("unknown colour 'green' (expected one of red, blue)".into()));
        assert_eq!(serde_json::to_string(&[Colour::Blue, Colour::Red]).unwrap(), r#"["blue","red"]"#);
        assert_eq!(serde_json::from_str::<Colour>(r#""rouge""#).unwrap(), Colour::Red);
        let e = serde_json::from_str::<Colour>(r#""green""#).unwrap_err().to_string();
        assert!(e.starts_with("unknown colour 'green'"), "{e}");
        assert_eq!(Colour::VALUES[0].help(), "Warm. Second line");
        assert_eq!(Colour::VALUES[1].help(), "");
    }
}
