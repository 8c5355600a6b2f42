//! Closed sets of values as the interface writes them, shared by the server and the client.

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
