use super::*;
use chrono::TimeZone;

fn at(h: u32, m: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 1, h, m, 0)
        .single()
        .unwrap_or_else(|| panic!("time"))
}

#[test]
fn every_value_parses_back_from_its_text() {
    for t in ResourceType::ALL {
        assert_eq!(ResourceType::parse(t.as_str()), Some(*t));
    }
    assert_eq!(SharedMode::choices(), "EXCLUSIVE, SHARED or POOLED");
    assert_eq!(PricingMode::parse("PER_HOUR"), Some(PricingMode::PerHour));
    assert_eq!(DurationMode::parse("fixed"), None);
}

#[test]
fn duration_rules_allow_exactly_what_they_say() {
    let fixed = DurationRule::Fixed(60);
    assert!(fixed.check(60).is_ok());
    assert_eq!(
        fixed.check(59),
        Err("this add-on lasts exactly 60 minutes".into())
    );
    let list = DurationRule::Selectable(vec![90, 30, 60, 60]);
    assert!(list.check(90).is_ok());
    assert_eq!(
        list.check(45),
        Err("this add-on lasts one of 90, 30, 60, 60 minutes".into())
    );
    assert_eq!(list.options(), vec![30, 60, 90]);
    let custom = DurationRule::Custom {
        min: 60,
        max: 180,
        step: 30,
    };
    for ok in [60, 90, 180] {
        assert!(custom.check(ok).is_ok(), "{ok}");
    }
    for bad in [30, 75, 210] {
        assert!(custom.check(bad).is_err(), "{bad}");
    }
    assert_eq!(custom.options(), vec![60, 90, 120, 150, 180]);
    let many = DurationRule::Custom {
        min: 5,
        max: 10_000,
        step: 5,
    };
    assert_eq!(many.options().len(), MAX_CUSTOM_OPTIONS);
}

#[test]
fn prices_follow_the_formulas_of_the_table() {
    let p = |mode, flat, hour, person, base| Pricing {
        mode,
        flat_price: flat,
        per_hour_price: hour,
        per_person_price: person,
        base_price: base,
    };
    assert_eq!(
        p(PricingMode::Flat, Some(5000), None, None, None).price(90, 6),
        Some(5000)
    );
    // 40.00 an hour for 90 minutes is 60.00; for 50 minutes 33.333… rounds to 33.33.
    let hourly = p(PricingMode::PerHour, None, Some(4000), None, None);
    assert_eq!(hourly.price(90, 6), Some(6000));
    assert_eq!(hourly.price(50, 6), Some(3333));
    // 0.01 an hour for 30 minutes is half a cent: rounds up.
    assert_eq!(
        p(PricingMode::PerHour, None, Some(1), None, None).price(30, 1),
        Some(1)
    );
    assert_eq!(
        p(PricingMode::PerPerson, None, None, Some(750), None).price(90, 6),
        Some(4500)
    );
    let composite = p(PricingMode::Composite, None, None, Some(500), Some(2000));
    assert_eq!(composite.price(60, 4), Some(4000));
    assert!(composite.missing().is_empty());
    let incomplete = p(PricingMode::Composite, None, None, None, Some(2000));
    assert_eq!(incomplete.missing(), vec!["perPersonPrice"]);
    assert_eq!(incomplete.price(60, 4), None);
    assert_eq!(
        p(PricingMode::PerPerson, None, None, Some(i64::MAX), None).price(60, 2),
        None
    );
}

#[test]
fn windows_lie_before_during_and_after_the_activity() {
    let rule = DurationRule::Selectable(vec![30, 120]);
    let all = Positions {
        before: true,
        during: true,
        after: true,
    };
    let w = windows(at(10, 0), at(11, 0), &rule, all);
    let got: Vec<_> = w
        .iter()
        .map(|w| (w.position, w.starts_at, w.ends_at, w.duration_mins))
        .collect();
    assert_eq!(
        got,
        vec![
            (WindowPosition::Before, at(9, 30), at(10, 0), 30),
            (WindowPosition::Before, at(8, 0), at(10, 0), 120),
            // 120 minutes do not fit in a one-hour activity.
            (WindowPosition::During, at(10, 0), at(10, 30), 30),
            (WindowPosition::After, at(11, 0), at(11, 30), 30),
            (WindowPosition::After, at(11, 0), at(13, 0), 120),
        ]
    );
    let after_only = Positions {
        before: false,
        during: false,
        after: true,
    };
    assert!(
        windows(at(10, 0), at(11, 0), &rule, after_only)
            .iter()
            .all(|w| w.position == WindowPosition::After)
    );
    assert_eq!(
        position_of(at(10, 0), at(11, 0), at(11, 0), at(12, 0)),
        Some(WindowPosition::After)
    );
    assert_eq!(
        position_of(at(10, 0), at(11, 0), at(10, 0), at(10, 30)),
        Some(WindowPosition::During)
    );
    assert_eq!(
        position_of(at(10, 0), at(11, 0), at(9, 0), at(10, 0)),
        Some(WindowPosition::Before)
    );
    assert_eq!(
        position_of(at(10, 0), at(11, 0), at(10, 15), at(10, 45)),
        None
    );
    assert_eq!(
        blocked(at(11, 0), at(12, 0), 15, 30),
        (at(10, 45), at(12, 30))
    );
}

#[test]
fn the_peak_counts_only_what_overlaps_at_one_moment() {
    // Two bookings one after the other never use the resource together.
    let taken = [(at(10, 0), at(11, 0), 1), (at(11, 0), at(12, 0), 1)];
    assert_eq!(peak_use(&taken, at(9, 0), at(13, 0)), 1);
    // A third across both meets each, not both at once.
    let mut more = taken.to_vec();
    more.push((at(10, 30), at(11, 30), 1));
    assert_eq!(peak_use(&more, at(9, 0), at(13, 0)), 2);
    // Outside the range counts nothing.
    assert_eq!(peak_use(&more, at(12, 0), at(13, 0)), 0);
    let pooled = [(at(10, 0), at(12, 0), 4), (at(11, 0), at(13, 0), 3)];
    assert_eq!(peak_use(&pooled, at(10, 0), at(13, 0)), 7);
    assert!(fits(SharedMode::Pooled, 10, 7, 3));
    assert!(!fits(SharedMode::Pooled, 10, 7, 4));
    assert!(fits(SharedMode::Shared, 3, 2, 1));
    assert!(!fits(SharedMode::Exclusive, 10, 1, 1));
    assert!(fits(SharedMode::Exclusive, 1, 0, 1));
    assert_eq!(units(SharedMode::Pooled, 6), 6);
    assert_eq!(units(SharedMode::Shared, 6), 1);
}
