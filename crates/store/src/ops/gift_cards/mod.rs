//! Gift cards: products (`products.rs`) and purchases (`purchases.rs`).

mod products;
mod purchases;

pub(crate) use purchases::pay_gift_card;
