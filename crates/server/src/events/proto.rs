//! The messages of `grpc.trade.event.EventService`: the model's ([`signet_model::events`]).

pub use signet_model::events::*;
