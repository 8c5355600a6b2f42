//! The ids that name an account, an order and an app, each its own type, so that passing one
//! where another is meant does not compile.
//!
//! Each is serde-transparent (it reads and writes as the bare string the interface uses) and
//! reads as a `&str` where text is wanted (`Deref`, and `Borrow<str>` for map lookups). Making
//! one from text is explicit (`AccountId::from(text)`): the doors do it where a request's field
//! becomes an id.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

macro_rules! string_id {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<String> for $name {
            fn from(text: String) -> Self {
                $name(text)
            }
        }

        impl From<&str> for $name {
            fn from(text: &str) -> Self {
                $name(text.to_owned())
            }
        }

        impl From<&String> for $name {
            fn from(text: &String) -> Self {
                $name(text.clone())
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl From<&$name> for String {
            fn from(id: &$name) -> String {
                id.0.clone()
            }
        }

        impl AsRef<std::ffi::OsStr> for $name {
            fn as_ref(&self) -> &std::ffi::OsStr {
                self.0.as_ref()
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        impl PartialEq<$name> for str {
            fn eq(&self, other: &$name) -> bool {
                self == other.0
            }
        }

        impl PartialEq<$name> for &str {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }

        impl PartialEq<$name> for String {
            fn eq(&self, other: &$name) -> bool {
                *self == other.0
            }
        }
    )*};
}

string_id! {
    /// An account's id (`account_id`): which account an order, a position or a balance is of.
    AccountId;
    /// An order's id as signet gives it (`order_id`).
    OrderId;
    /// An order's id as its client gave it (`client_order_id`), unique within its account.
    ClientOrderId;
    /// An app's key (`x-app-key`): who signed a request, whose accounts it may use.
    AppKey;
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    #[test]
    fn ids_read_and_write_as_the_bare_value() {
        let account: AccountId = serde_json::from_str("\"A1\"").unwrap();
        assert_eq!(account, "A1");
        assert_eq!(serde_json::to_string(&account).unwrap(), "\"A1\"");
    }

    #[test]
    fn a_map_keyed_by_an_id_is_looked_up_by_its_text() {
        let mut orders = HashMap::new();
        orders.insert(OrderId::from("O1"), 1);
        assert_eq!(orders.get("O1"), Some(&1));
        assert_eq!(orders.get("O2"), None);
    }
}
