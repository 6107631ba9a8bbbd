use super::*;

pub(super) fn t(s: &str) -> LocalTime {
    LocalTime::parse(s).unwrap_or_else(|e| panic!("{e}"))
}

pub(super) fn d(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap_or_else(|e| panic!("{e}"))
}

pub(super) fn utc(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s)
        .map(|x| x.with_timezone(&Utc))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn tz(name: &str) -> TimeZone {
    TimeZone::get(name).unwrap_or_else(|e| panic!("{e}"))
}

fn daily(start: &str, end: &str) -> Template {
    Template {
        day_of_week: None,
        start: t(start),
        end: t(end),
        kind: RecurrenceKind::Daily,
        by_day: None,
        by_month: None,
        by_month_day: None,
        exdates: vec![],
        valid_from: None,
        valid_to: None,
    }
}

fn with_templates(templates: Vec<Template>) -> Schedules {
    Schedules {
        templates,
        ..Default::default()
    }
}

fn interval(every: u16, duration: u16) -> SlotShape {
    SlotShape {
        policy: SlotPolicy::Interval { every_mins: every },
        duration_mins: duration,
        setup_mins: 0,
        cleanup_mins: 0,
    }
}

fn hhmm(starts: &[u16]) -> Vec<String> {
    starts.iter().map(|m| LocalTime(*m).to_string()).collect()
}

fn window(start: &str, end: &str) -> Window {
    Window {
        start: t(start).minutes(),
        end: t(end).minutes(),
    }
}

#[test]
fn local_times_parse_strictly() {
    assert_eq!(t("00:00").minutes(), 0);
    assert_eq!(t("23:59").minutes(), 1439);
    assert_eq!(t("09:30").to_string(), "09:30");
    for bad in ["24:00", "9:30", "12:60", "noon", "", "12:3"] {
        assert!(LocalTime::parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn interval_slots_start_at_the_window_start_and_fit_the_window() {
    let shape = interval(30, 60);
    assert_eq!(
        hhmm(&shape.starts(&[window("10:00", "14:00")])),
        [
            "10:00", "10:30", "11:00", "11:30", "12:00", "12:30", "13:00"
        ]
    );
    // A window shorter than the slot gives nothing.
    assert!(shape.starts(&[window("10:00", "10:45")]).is_empty());
}

#[test]
fn setup_and_cleanup_must_fit_inside_operating_hours() {
    let shape = SlotShape {
        setup_mins: 15,
        cleanup_mins: 15,
        ..interval(30, 60)
    };
    assert_eq!(
        hhmm(&shape.starts(&[window("10:00", "14:00")])),
        ["10:30", "11:00", "11:30", "12:00", "12:30"]
    );
}

#[test]
fn fixed_slots_only_at_their_times_inside_hours() {
    let shape = SlotShape {
        policy: SlotPolicy::Fixed {
            times: vec![t("09:00"), t("10:00"), t("12:00"), t("13:30")],
        },
        duration_mins: 60,
        setup_mins: 0,
        cleanup_mins: 0,
    };
    assert_eq!(
        hhmm(&shape.starts(&[window("10:00", "14:00")])),
        ["10:00", "12:00"]
    );
    let with_cleanup = SlotShape {
        cleanup_mins: 30,
        ..shape
    };
    assert_eq!(
        hhmm(&with_cleanup.starts(&[window("10:00", "14:00")])),
        ["10:00", "12:00"]
    );
}

#[test]
fn recurrence_kinds() {
    // 2026-11-23 is a Monday.
    let monday = d("2026-11-23");
    let saturday = d("2026-11-28");
    let weekdays = Template {
        kind: RecurrenceKind::Weekly,
        by_day: Some(0b011_1110),
        ..daily("10:00", "18:00")
    };
    assert!(weekdays.occurs_on(monday));
    assert!(!weekdays.occurs_on(saturday));
    let saturdays = Template {
        kind: RecurrenceKind::Weekly,
        day_of_week: Some(6),
        ..daily("10:00", "18:00")
    };
    assert!(saturdays.occurs_on(saturday) && !saturdays.occurs_on(monday));
    let monthly = Template {
        kind: RecurrenceKind::Monthly,
        by_month_day: Some(23),
        ..daily("10:00", "12:00")
    };
    assert!(
        monthly.occurs_on(monday)
            && monthly.occurs_on(d("2026-12-23"))
            && !monthly.occurs_on(saturday)
    );
    let annual = Template {
        kind: RecurrenceKind::Annual,
        by_month: Some(12),
        by_month_day: Some(24),
        ..daily("10:00", "14:00")
    };
    assert!(
        annual.occurs_on(d("2026-12-24"))
            && annual.occurs_on(d("2027-12-24"))
            && !annual.occurs_on(d("2026-11-24"))
    );
    let once = Template {
        kind: RecurrenceKind::None,
        valid_from: Some(monday),
        ..daily("10:00", "12:00")
    };
    assert!(once.occurs_on(monday) && !once.occurs_on(d("2026-11-24")));
    let bounded = Template {
        valid_from: Some(d("2026-12-01")),
        valid_to: Some(d("2026-12-31")),
        ..daily("10:00", "12:00")
    };
    assert!(
        !bounded.occurs_on(monday)
            && bounded.occurs_on(d("2026-12-15"))
            && !bounded.occurs_on(d("2027-01-01"))
    );
}

#[test]
fn excluded_dates_have_no_hours() {
    let template = Template {
        exdates: vec![d("2026-12-25")],
        ..daily("10:00", "12:00")
    };
    let site = with_templates(vec![template]);
    assert!(operating_windows(&site, &Schedules::default(), d("2026-12-25")).is_empty());
    assert_eq!(
        operating_windows(&site, &Schedules::default(), d("2026-12-26")),
        [window("10:00", "12:00")]
    );
}

#[test]
fn template_validation_names_each_problem() {
    let bad = Template {
        kind: RecurrenceKind::Weekly,
        by_day: Some(0),
        day_of_week: Some(7),
        by_month: Some(13),
        ..daily("12:00", "10:00")
    };
    let fields: Vec<&str> = bad
        .validate()
        .err()
        .unwrap_or_default()
        .iter()
        .map(|(f, _)| *f)
        .collect();
    assert_eq!(fields, ["startTime", "dayOfWeek", "byDay", "byMonth"]);
    let annual = Template {
        kind: RecurrenceKind::Annual,
        by_month: Some(5),
        ..daily("10:00", "12:00")
    };
    assert!(annual.validate().is_err());
    assert!(daily("10:00", "12:00").validate().is_ok());
}

#[test]
fn overrides_replace_templates_on_their_dates() {
    let site = Schedules {
        templates: vec![daily("10:00", "18:00")],
        overrides: vec![Override {
            dates: DateRange {
                from: d("2026-12-24"),
                to: d("2026-12-24"),
                annual: false,
            },
            start: t("10:00"),
            end: t("13:00"),
        }],
        ..Default::default()
    };
    let none = Schedules::default();
    assert_eq!(
        operating_windows(&site, &none, d("2026-12-24")),
        [window("10:00", "13:00")]
    );
    assert_eq!(
        operating_windows(&site, &none, d("2026-12-23")),
        [window("10:00", "18:00")]
    );
}

#[test]
fn blackouts_block_everything_including_overrides() {
    let site = Schedules {
        templates: vec![daily("10:00", "18:00")],
        overrides: vec![Override {
            dates: DateRange {
                from: d("2026-12-01"),
                to: d("2026-12-31"),
                annual: false,
            },
            start: t("09:00"),
            end: t("20:00"),
        }],
        blackouts: vec![Blackout {
            dates: DateRange {
                from: d("2026-12-24"),
                to: d("2026-12-26"),
                annual: false,
            },
            hours: None,
        }],
    };
    let product = Schedules {
        blackouts: vec![Blackout {
            dates: DateRange {
                from: d("2026-12-10"),
                to: d("2026-12-10"),
                annual: false,
            },
            hours: Some((t("12:00"), t("13:00"))),
        }],
        ..Default::default()
    };
    assert!(operating_windows(&site, &product, d("2026-12-25")).is_empty());
    assert_eq!(
        operating_windows(&site, &product, d("2026-12-10")),
        [window("09:00", "12:00"), window("13:00", "20:00")]
    );
}

#[test]
fn annual_blackouts_repeat_and_may_wrap_the_new_year() {
    let holidays = DateRange {
        from: d("2026-12-31"),
        to: d("2027-01-01"),
        annual: true,
    };
    assert!(holidays.contains(d("2026-12-31")));
    assert!(holidays.contains(d("2028-01-01")));
    assert!(holidays.contains(d("2027-12-31")));
    assert!(!holidays.contains(d("2027-01-02")));
    assert!(!holidays.contains(d("2026-12-30")));
    assert!(
        !holidays.contains(d("2025-12-31")),
        "not before the first occurrence"
    );
}

#[test]
fn product_schedules_override_site_schedules() {
    let site = with_templates(vec![daily("10:00", "18:00")]);
    let product = with_templates(vec![Template {
        kind: RecurrenceKind::Weekly,
        by_day: Some(1 << 6),
        ..daily("12:00", "14:00")
    }]);
    // Saturday: the product's own hours; Monday: it has none, so the site's apply.
    assert_eq!(
        operating_windows(&site, &product, d("2026-11-28")),
        [window("12:00", "14:00")]
    );
    assert_eq!(
        operating_windows(&site, &product, d("2026-11-23")),
        [window("10:00", "18:00")]
    );
}

#[test]
fn overlapping_templates_merge_into_one_window() {
    let site = with_templates(vec![
        daily("10:00", "14:00"),
        daily("13:00", "16:00"),
        daily("18:00", "20:00"),
    ]);
    assert_eq!(
        operating_windows(&site, &Schedules::default(), d("2026-11-23")),
        [window("10:00", "16:00"), window("18:00", "20:00")]
    );
}

#[test]
fn slots_are_stored_in_utc_from_site_local_time() {
    let site = with_templates(vec![daily("09:00", "11:00")]);
    let slots = slots_on(
        &tz("Europe/Helsinki"),
        &site,
        &Schedules::default(),
        &interval(60, 60),
        d("2026-11-23"),
    );
    assert_eq!(
        slots,
        [
            SlotTime {
                starts_at: utc("2026-11-23T07:00:00Z"),
                ends_at: utc("2026-11-23T08:00:00Z")
            },
            SlotTime {
                starts_at: utc("2026-11-23T08:00:00Z"),
                ends_at: utc("2026-11-23T09:00:00Z")
            },
        ]
    );
}

#[test]
fn helsinki_spring_gap_and_autumn_fold() {
    let helsinki = tz("Europe/Helsinki");
    let site = with_templates(vec![daily("02:00", "10:00")]);
    let shape = interval(30, 30);
    let none = Schedules::default();
    // 2027-03-28: clocks go from 03:00 to 04:00. 09:00 stays 09:00 local on both sides.
    let before = slots_on(&helsinki, &site, &none, &shape, d("2027-03-27"));
    let change = slots_on(&helsinki, &site, &none, &shape, d("2027-03-28"));
    assert!(
        before
            .iter()
            .any(|s| s.starts_at == utc("2027-03-27T07:00:00Z"))
    );
    assert!(
        change
            .iter()
            .any(|s| s.starts_at == utc("2027-03-28T06:00:00Z"))
    );
    // 03:00 and 03:30 do not exist that night: two fewer slots.
    assert_eq!(before.len(), 16);
    assert_eq!(change.len(), 14);
    assert!(local_instant(&helsinki, d("2027-03-28"), 3 * 60 + 30).is_none());
    // 2026-10-25: 04:00 EEST becomes 03:00 EET; 03:30 happens twice, the first is used.
    assert_eq!(
        local_instant(&helsinki, d("2026-10-25"), 3 * 60 + 30),
        Some(utc("2026-10-25T00:30:00Z"))
    );
    let fold = slots_on(&helsinki, &site, &none, &shape, d("2026-10-25"));
    assert_eq!(fold.len(), 16, "one slot per local start time");
    assert!(
        fold.iter()
            .all(|s| s.ends_at - s.starts_at == chrono::Duration::minutes(30))
    );
}

#[test]
fn new_york_spring_gap_and_autumn_fold() {
    let ny = tz("America/New_York");
    let site = with_templates(vec![daily("00:00", "12:00")]);
    let none = Schedules::default();
    let shape = SlotShape {
        policy: SlotPolicy::Fixed {
            times: vec![t("01:30"), t("02:30"), t("09:00")],
        },
        duration_mins: 60,
        setup_mins: 0,
        cleanup_mins: 0,
    };
    // 2027-03-14: 02:00 EST jumps to 03:00 EDT; the 02:30 slot does not exist.
    let spring = slots_on(&ny, &site, &none, &shape, d("2027-03-14"));
    let starts: Vec<DateTime<Utc>> = spring.iter().map(|s| s.starts_at).collect();
    assert_eq!(
        starts,
        [utc("2027-03-14T06:30:00Z"), utc("2027-03-14T13:00:00Z")]
    );
    // 2026-11-01: 01:30 happens twice; the EDT one (earlier) is used. 09:00 is EST.
    let autumn = slots_on(&ny, &site, &none, &shape, d("2026-11-01"));
    let starts: Vec<DateTime<Utc>> = autumn.iter().map(|s| s.starts_at).collect();
    assert_eq!(
        starts,
        [
            utc("2026-11-01T05:30:00Z"),
            utc("2026-11-01T07:30:00Z"),
            utc("2026-11-01T14:00:00Z")
        ]
    );
}

#[test]
fn days_start_at_local_midnight() {
    assert_eq!(
        start_of_day(&tz("Europe/Helsinki"), d("2026-11-23")),
        Some(utc("2026-11-22T22:00:00Z"))
    );
    assert_eq!(
        start_of_day(&tz("America/New_York"), d("2026-07-04")),
        Some(utc("2026-07-04T04:00:00Z"))
    );
}

#[test]
fn conflicts_need_a_shared_date_and_overlapping_hours() {
    let from = d("2026-11-21");
    let weekdays = Template {
        kind: RecurrenceKind::Weekly,
        by_day: Some(0b011_1110),
        ..daily("10:00", "14:00")
    };
    let saturdays = Template {
        kind: RecurrenceKind::Weekly,
        by_day: Some(1 << 6),
        ..daily("10:00", "14:00")
    };
    let afternoons = daily("13:00", "18:00");
    let evenings = daily("14:00", "18:00");
    assert!(templates_conflict(&weekdays, &saturdays, from).is_none());
    assert_eq!(
        templates_conflict(&weekdays, &afternoons, from),
        Some(d("2026-11-23"))
    );
    assert!(
        templates_conflict(&weekdays, &evenings, from).is_none(),
        "touching is not overlapping"
    );
    let a = Override {
        dates: DateRange {
            from: d("2026-12-20"),
            to: d("2026-12-24"),
            annual: false,
        },
        start: t("10:00"),
        end: t("12:00"),
    };
    let b = Override {
        dates: DateRange {
            from: d("2026-12-24"),
            to: d("2026-12-31"),
            annual: false,
        },
        start: t("11:00"),
        end: t("15:00"),
    };
    assert_eq!(overrides_conflict(&a, &b, from), Some(d("2026-12-24")));
}

#[test]
fn slots_between_covers_every_date() {
    let site = with_templates(vec![daily("10:00", "12:00")]);
    let slots = slots_between(
        &tz("UTC"),
        &site,
        &Schedules::default(),
        &interval(60, 60),
        d("2026-11-21"),
        d("2026-11-27"),
    );
    assert_eq!(slots.len(), 14);
}

#[test]
fn every_schedule_value_parses_back_from_its_text() {
    for s in ScopeType::ALL {
        assert_eq!(ScopeType::parse(s.as_str()), Some(*s));
    }
    for k in RecurrenceKind::ALL {
        assert_eq!(RecurrenceKind::parse(k.as_str()), Some(*k));
    }
    for r in DateRecurrence::ALL {
        assert_eq!(DateRecurrence::parse(r.as_str()), Some(*r));
    }
    for k in BlackoutKind::ALL {
        assert_eq!(BlackoutKind::parse(k.as_str()), Some(*k));
    }
    assert_eq!(ScopeType::parse("Site"), None);
    assert_eq!(RecurrenceKind::parse("hourly"), None);
    assert_eq!(
        RecurrenceKind::choices(),
        "none, daily, weekly, monthly or annual"
    );
    assert_eq!(DateRecurrence::choices(), "none or annual");
    assert_eq!(
        BlackoutKind::choices(),
        "maintenance, holiday, closure or event"
    );
}
