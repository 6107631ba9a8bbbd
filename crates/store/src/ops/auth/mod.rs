//! Authentication: staff accounts and their roles.

mod staff;
