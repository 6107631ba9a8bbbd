//! Gift cards: products (`products.rs`), purchases (`purchases.rs`) and what their
//! payment does (`paid.rs`).

mod paid;
mod products;
mod purchases;

pub(crate) use paid::pay_gift_card;
