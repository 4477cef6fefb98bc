-- sign_in_failures are the counts of the sign-in throttle (formapi/throttle.go),
-- kept in the database so that every instance of the server sharing it
-- counts the same failures and honours the same lockouts. key names what
-- is counted: an account, an address, or an account from an address.
-- Times are RFC 3339 text; '' means never.
CREATE TABLE sign_in_failures (
    key          TEXT PRIMARY KEY,
    failures     INTEGER NOT NULL DEFAULT 0,
    last_at      TEXT NOT NULL DEFAULT '',
    locked_until TEXT NOT NULL DEFAULT '',
    lockouts     INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sign_in_failures_last ON sign_in_failures (last_at);
