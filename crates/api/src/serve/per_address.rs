//! The per-address connection cap: how many connections one client address may hold open.
//!
//! At accept time only the peer address of the TCP connection is known (`X-Forwarded-For`
//! is a request header, read later), so the cap keys on the peer:
//! - an IPv4 address counts alone;
//! - an IPv6 address counts with its whole /64, since one client (a home, a phone, a
//!   rented server) is usually given a /64 and may pick any address in it;
//! - an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, as a dual-stack listener sees IPv4
//!   peers) counts as its IPv4 address.
//!
//! Behind a proxy every client arrives from the proxy's address. The proxy's addresses
//! are listed as [`TrustedProxies`]: their connections are not counted against the
//! per-address cap (only against the total), and the proxy is expected to cap its own
//! clients.

use ipnet::{IpNet, Ipv4Net};
use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::{Arc, Mutex, PoisonError};

/// Networks whose connections the per-address cap does not count: the proxies in front.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Loopback (`127.0.0.0/8`, `::1`): a proxy on the same machine. The default: such a
    /// proxy works as it is, and only local programs can connect from loopback.
    pub const LOOPBACK: &str = "127.0.0.0/8, ::1";

    /// No proxy: every peer is counted.
    pub fn none() -> Self {
        Self(Vec::new())
    }

    /// [`Self::LOOPBACK`].
    pub fn loopback() -> Self {
        Self(vec![
            IpNet::V4(Ipv4Net::new_assert(Ipv4Addr::new(127, 0, 0, 0), 8)),
            IpNet::from(IpAddr::V6(Ipv6Addr::LOCALHOST)),
        ])
    }

    /// Parses a list of addresses and networks separated by commas or spaces
    /// (`10.0.0.5, 192.168.0.0/16, fd00::/8`); an empty list trusts nobody.
    pub fn parse(list: &str) -> Result<Self, String> {
        list.split(|c: char| c == ',' || c.is_whitespace())
            .filter(|item| !item.is_empty())
            .map(|item| {
                item.parse::<IpNet>()
                    .or_else(|_| {
                        item.parse::<IpAddr>()
                            .map(|a| IpNet::from(a.to_canonical()))
                    })
                    .map_err(|_| {
                        format!("{item:?} is not an IP address or network (address/prefix)")
                    })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Self)
    }

    /// Whether `ip` is one of the listed proxies.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|n| n.contains(&ip))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// What one client's connections are counted under: an IPv4 address, or an IPv6 /64.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ClientKey(IpAddr);

impl ClientKey {
    pub(crate) fn of(ip: IpAddr) -> Self {
        match ip.to_canonical() {
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & (u128::MAX << 64);
                ClientKey(IpAddr::V6(Ipv6Addr::from(prefix)))
            }
            v4 => ClientKey(v4),
        }
    }
}

/// Open connections per client, at most `cap` each (0 = no cap).
#[derive(Debug)]
pub(crate) struct PerAddress {
    cap: usize,
    trusted: TrustedProxies,
    open: Mutex<HashMap<ClientKey, usize>>,
}

impl PerAddress {
    pub(crate) fn new(cap: usize, trusted: TrustedProxies) -> Arc<Self> {
        Arc::new(Self {
            cap,
            trusted,
            open: Mutex::new(HashMap::new()),
        })
    }

    /// A place for one more connection from `ip`, or `None` when its client already holds
    /// `cap`. A trusted proxy, or any address when there is no cap, is not counted.
    pub(crate) fn open(self: &Arc<Self>, ip: IpAddr) -> Option<AddressSlot> {
        if self.cap == 0 || self.trusted.contains(ip) {
            return Some(AddressSlot { table: None });
        }
        let key = ClientKey::of(ip);
        let mut open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        let count = open.entry(key).or_insert(0);
        if *count >= self.cap {
            return None;
        }
        *count += 1;
        Some(AddressSlot {
            table: Some((self.clone(), key)),
        })
    }

    /// Connections open now from `ip`'s client (those counted).
    #[cfg(test)]
    fn count(&self, ip: IpAddr) -> usize {
        let open = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        open.get(&ClientKey::of(ip)).copied().unwrap_or(0)
    }
}

/// One counted connection; its place is given back when it is dropped.
#[derive(Debug)]
pub(crate) struct AddressSlot {
    table: Option<(Arc<PerAddress>, ClientKey)>,
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let Some((table, key)) = self.table.take() else {
            return;
        };
        let mut open = table.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = open.get_mut(&key) {
            *count = count.saturating_sub(1);
            // Forgotten at zero: the table holds only clients with connections open.
            if *count == 0 {
                open.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn one_client_holds_at_most_the_cap_and_gets_its_places_back() {
        let table = PerAddress::new(2, TrustedProxies::none());
        let a = table.open(ip("192.0.2.1"));
        let b = table.open(ip("192.0.2.1"));
        assert!(a.is_some() && b.is_some());
        assert!(
            table.open(ip("192.0.2.1")).is_none(),
            "the third is refused"
        );
        assert!(
            table.open(ip("192.0.2.2")).is_some(),
            "another address is not"
        );
        drop(a);
        assert_eq!(table.count(ip("192.0.2.1")), 1);
        assert!(table.open(ip("192.0.2.1")).is_some());
        drop(b);
        assert!(
            table
                .open
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_empty(),
            "nothing is kept for clients without connections"
        );
    }

    #[test]
    fn an_ipv6_client_is_its_slash_64_and_a_mapped_ipv4_is_the_ipv4() {
        let table = PerAddress::new(2, TrustedProxies::none());
        let _a = table.open(ip("2001:db8:1:2::1"));
        let _b = table.open(ip("2001:db8:1:2:ffff:ffff:ffff:ffff"));
        assert!(table.open(ip("2001:db8:1:2:abcd::9")).is_none());
        assert!(table.open(ip("2001:db8:1:3::1")).is_some(), "the next /64");
        let _c = table.open(ip("198.51.100.7"));
        let _d = table.open(ip("::ffff:198.51.100.7"));
        assert!(table.open(ip("198.51.100.7")).is_none());
    }

    #[test]
    fn trusted_proxies_and_no_cap_are_not_counted() {
        let trusted = TrustedProxies::parse("10.0.0.5, 172.16.0.0/12 fd00::/8")
            .unwrap_or_else(|e| panic!("{e}"));
        let table = PerAddress::new(1, trusted);
        let held: Vec<_> = [
            "10.0.0.5",
            "10.0.0.5",
            "172.20.1.1",
            "172.20.1.1",
            "fd12::1",
        ]
        .iter()
        .map(|a| table.open(ip(a)))
        .collect();
        assert!(held.iter().all(Option::is_some));
        let _one = table.open(ip("10.0.0.6"));
        assert!(
            table.open(ip("10.0.0.6")).is_none(),
            "10.0.0.6 is not listed"
        );
        let off = PerAddress::new(0, TrustedProxies::none());
        let held: Vec<_> = (0..100).map(|_| off.open(ip("192.0.2.1"))).collect();
        assert!(held.iter().all(Option::is_some));
    }

    #[test]
    fn trusted_proxy_lists_are_parsed_strictly() {
        let list =
            TrustedProxies::parse(" 10.0.0.1,,::1 , 0.0.0.0/0 ").unwrap_or_else(|e| panic!("{e}"));
        assert!(list.contains(ip("203.0.113.9")), "0.0.0.0/0 is every IPv4");
        assert!(list.contains(ip("::1")));
        assert!(!list.contains(ip("::2")));
        assert!(TrustedProxies::parse("").is_ok_and(|l| l.is_empty()));
        assert_eq!(
            TrustedProxies::parse(TrustedProxies::LOOPBACK),
            Ok(TrustedProxies::loopback())
        );
        assert!(TrustedProxies::loopback().contains(ip("127.0.0.2")));
        assert!(!TrustedProxies::loopback().contains(ip("128.0.0.1")));
        for bad in [
            "10.0.0.1/33",
            "::1/129",
            "proxy.local",
            "10.0.0/8",
            "10.0.0.1/x",
        ] {
            let error = TrustedProxies::parse(bad).err().unwrap_or_default();
            assert!(error.contains(bad), "{bad}: {error}");
        }
    }
}
