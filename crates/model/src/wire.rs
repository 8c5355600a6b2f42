//! Closed sets of values as the interface writes them, shared by the server and the client.

#[doc(hidden)]
pub use utoipa as __utoipa;

/// The OpenAPI schema of a [`WireEnum`]: a string among `values`, described by the enum's doc
/// comment (`docs` holds the `#[doc = "..."]` attributes as [`stringify!`] writes them).
#[doc(hidden)]
pub fn enum_schema(values: &[&str], docs: &str) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, Type};
    let description: Vec<&str> = docs
        .lines()
        .filter_map(|line| line.trim().strip_prefix("doc = \"")?.strip_suffix('"'))
        .map(str::trim)
        .collect();
    let mut schema = ObjectBuilder::new()
        .schema_type(Type::String)
        .enum_values(Some(values.iter().copied()));
    if !description.is_empty() {
        schema = schema.description(Some(description.join(" ").replace("\\\"", "\"")));
    }
    schema.into()
}

/// A number in a request: a decimal string, as the official clients send it (a JSON number is
/// accepted too; `null` is the same as absent).
#[doc(hidden)]
pub fn decimal_input() -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Number, Type::Null]))
        .pattern(Some(DECIMAL_PATTERN))
        .description(Some(
            "A decimal string such as \"10\" or \"187.25\" (a JSON number is accepted too)",
        ))
        .build()
}

/// What a decimal string looks like on the wire.
#[doc(hidden)]
pub const DECIMAL_PATTERN: &str = "^-?[0-9]+(\\.[0-9]+)?$";

/// A closed set of values, written as on the wire.
pub trait WireEnum: Sized + Copy + 'static {
    const VALUES: &'static [&'static str];
    fn parse(value: &str) -> Option<Self>;
    fn as_str(self) -> &'static str;
}

#[macro_export]
macro_rules! wire_enum {
    ($(#[$doc:meta])* $name:ident { $($variant:ident = $text:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name { $($variant),* }

        impl $crate::wire::WireEnum for $name {
            const VALUES: &'static [&'static str] = &[$($text),*];

            fn parse(value: &str) -> Option<Self> {
                match value { $($text => Some($name::$variant),)* _ => None }
            }

            fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text,)* }
            }
        }

        impl $crate::wire::__utoipa::PartialSchema for $name {
            fn schema() -> $crate::wire::__utoipa::openapi::RefOr<$crate::wire::__utoipa::openapi::schema::Schema> {
                $crate::wire::enum_schema(<$name as $crate::wire::WireEnum>::VALUES, concat!($(stringify!($doc), "\n",)* ""))
            }
        }

        impl $crate::wire::__utoipa::ToSchema for $name {
            fn name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(stringify!($name))
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str($crate::wire::WireEnum::as_str(*self))
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str> as ::serde::Deserialize>::deserialize(d)?;
                <$name as $crate::wire::WireEnum>::parse(&text).ok_or_else(|| {
                    ::serde::de::Error::custom(format!(
                        "{:?} is not one of {}",
                        text,
                        <$name as $crate::wire::WireEnum>::VALUES.join(", ")
                    ))
                })
            }
        }
    };
}
