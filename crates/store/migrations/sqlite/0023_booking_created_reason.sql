-- SQLite twin of migrations/postgres (see 0001 for the type mapping).
-- Why staff created a booking (spec Part A 4.2: phone_booking, walk_in, comp, correction,
-- other) and the customer's terms accepted on their behalf: when and by whom (staff).
ALTER TABLE bookings ADD COLUMN created_reason TEXT
    CHECK (created_reason IN ('phone_booking', 'walk_in', 'comp', 'correction', 'other'));
ALTER TABLE bookings ADD COLUMN terms_accepted_at TEXT;
ALTER TABLE bookings ADD COLUMN terms_accepted_by TEXT;
