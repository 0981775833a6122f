//! Value parsers of the library's types: the [`Named`] enums take the names
//! of their one table, with each value's help.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

use c4bdd::game::BoardSize;
use c4bdd::named::Named;

/// The parser of a [`Named`] enum: its names (aliases accepted, not
/// listed), each with its doc comment's first paragraph as help.
pub fn named<T: Named + Send + Sync>() -> impl TypedValueParser<Value = T> {
    let values = T::VALUES.iter().map(|v| {
        let value = PossibleValue::new(v.name).aliases(v.aliases.iter().copied());
        match v.help() {
            help if help.is_empty() => value,
            help => value.help(help),
        }
    });
    PossibleValuesParser::new(values).map(|name| T::from_name(&name).expect("a name of the table"))
}

/// A board as `WxH`.
pub fn parse_board(text: &str) -> std::result::Result<BoardSize, String> {
    text.parse()
}
