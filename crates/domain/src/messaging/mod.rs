//! Messages to customers (spec Part B 2.7, 4.7, 4.8): the kinds of message the product
//! sends with their variables and English defaults ([`catalog`]), and rendering a
//! template with handlebars ([`render`]).

pub mod catalog;
pub mod render;

crate::text_enum! {
    /// How a template is delivered.
    pub enum Channel {
        Email = "email",
        Sms = "sms",
    }
}
