-- Staff sessions end when the password changes or the account is deactivated: every token
-- carries the generation it was issued under, and those changes move it on.
-- SQLite twin of migrations/postgres.
ALTER TABLE admin_users ADD COLUMN token_generation INTEGER NOT NULL DEFAULT 0;
