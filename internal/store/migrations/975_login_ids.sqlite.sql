-- A login id has one canonical form (formapi.loginID: trimmed, lowercase),
-- stored and looked up exactly. Registration always stored it; this makes
-- sure of it for every row. users.email keeps COLLATE NOCASE, which only
-- folds ASCII letters: between lowercase ids it is exact comparison.
UPDATE users SET email = lower(trim(email)) WHERE email <> lower(trim(email));
