package cmd

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

// mailDB is a database the commands created, with rows added as a server
// would have written them.
func mailDB(t *testing.T, inserts ...string) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "mail.db")
	if code, _, stderr := execute(t, nil, "mail", "outbox", "--db", db); code != 0 {
		t.Fatalf("creating %s: %s", db, stderr)
	}
	conn, err := sql.Open("sqlite3", db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range inserts {
		if _, err := conn.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db
}

func outboxRow(kind, to, subject, body, state, lastError string) string {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
	return `INSERT INTO outbox (created_at, kind, recipient, subject, body, state, last_error, next_attempt_at) VALUES ('2026-11-20T10:00:00.000Z', ` +
		q(kind) + `, ` + q(to) + `, ` + q(subject) + `, ` + q(body) + `, ` + q(state) + `, ` + q(lastError) + `, '2026-11-20T10:00:00.000Z')`
}

// TestMailOutboxEscapesStoredText: whatever a subject, address or error
// holds (line breaks and tabs that would forge rows or columns, bidi
// overrides and isolates that reorder the line, C1 and other control
// characters, terminal escapes, separators, bytes that are not UTF-8),
// each message is one row of the listing, with the characters escaped.
func TestMailOutboxEscapesStoredText(t *testing.T) {
	hostile := []struct{ name, subject, escaped string }{
		{"CR LF forging a row", "Hi\r\n99  2026-01-01 00:00:00  notification  sent  0  boss@example.com  Pay now", `Hi\r\n99`},
		{"tab forging a column", "a\tb", `a\tb`},
		{"right-to-left override", "invoice\u202efdp.exe", `invoice\u202efdp.exe`},
		{"left-to-right isolate", "x\u2066y\u2069z", `x\u2066y\u2069z`},
		{"C1 next line", "a\u0085b", `a\u0085b`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"paragraph separator", "a\u2029b", `a\u2029b`},
		{"terminal escape", "\x1b[2J\x1b[31mred", `\x1b[2J\x1b[31mred`},
		{"zero width space", "a\u200bb", `a\u200bb`},
		{"bytes that are not UTF-8", "a\xff\xfeb", `a\xff\xfeb`},
	}
	var rows []string
	for _, h := range hostile {
		rows = append(rows, outboxRow("notification", "provider@example.com", h.subject, "body", "held", ""))
	}
	rows = append(rows, outboxRow("account", "member@example.in", "मराठी क्\u200dष", "b", "failed", "550 no\r\nsuch\u202e mailbox"))
	db := mailDB(t, rows...)
	code, out, stderr := execute(t, nil, "mail", "outbox", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if want := len(hostile) + 3; len(lines) != want { // heading, one row each, count
		t.Errorf("%d lines, want %d (one row per message):\n%s", len(lines), want, out)
	}
	if !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[0], "KIND") || lines[len(lines)-1] != "11 messages" {
		t.Errorf("heading %q, last line %q", lines[0], lines[len(lines)-1])
	}
	for _, h := range hostile {
		if !strings.Contains(out, h.escaped) {
			t.Errorf("%s: the listing lacks %q:\n%s", h.name, h.escaped, out)
		}
	}
	for _, raw := range []string{"\r", "\t", "\u202e", "\u2066", "\u0085", "\u2028", "\u2029", "\x1b", "\u200b", "\xff"} {
		if strings.Contains(out, raw) {
			t.Errorf("the listing holds a raw %q", raw)
		}
	}
	if !strings.Contains(lines[1], `550 no\r\nsuch\u202e mailbox`) || !strings.Contains(lines[1], "मराठी क्\u200dष") || !strings.Contains(lines[1], "account") {
		t.Errorf("newest row %q: want the kind, the Marathi subject as is and the error escaped", lines[1])
	}
}

// TestMailOutboxShow: --show prints one message's headers and text body;
// line breaks of the body stay, anything that could disguise it is
// escaped; an unknown id exits 1.
func TestMailOutboxShow(t *testing.T) {
	body := "Open this link within 30 minutes:\n\nhttp://localhost:8080/reset-password?token=abc\n\x1b[8mhidden\u202e"
	db := mailDB(t, outboxRow("account", "member@example.in", "Reset your password", body, "held", ""))
	code, out, stderr := execute(t, nil, "mail", "outbox", "--show", "1", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"ID: 1\n", "Kind: account\n", "State: held\n", "To: member@example.in\n", "Subject: Reset your password\n",
		"\n\nOpen this link within 30 minutes:\n\nhttp://localhost:8080/reset-password?token=abc\n" + `\x1b[8mhidden\u202e`} {
		if !strings.Contains(out, want) {
			t.Errorf("--show lacks %q:\n%s", want, out)
		}
	}
	code, _, stderr = execute(t, nil, "mail", "outbox", "--show", "7", "--db", db)
	if code != 1 || !strings.Contains(stderr, "no such outbox message: 7") {
		t.Errorf("unknown id: exit %d, %q", code, stderr)
	}
}

// TestMailOptouts: the list in text and CSV (where an address a
// spreadsheet would read as a formula is written as text), lifting one
// (any case), and lifting one that is not there (exit 1).
func TestMailOptouts(t *testing.T) {
	db := mailDB(t,
		`INSERT INTO mail_opt_outs (email, created_at) VALUES ('ravi@example.in', '2026-11-20T10:00:00.000Z')`,
		`INSERT INTO mail_opt_outs (email, created_at) VALUES ('asha@example.in', '2026-11-21T09:30:00.000Z')`,
		`INSERT INTO mail_opt_outs (email, created_at) VALUES ('-2+3@example.in', '2026-11-21T09:40:00.000Z')`)
	code, out, _ := execute(t, nil, "mail", "optouts", "--db", db)
	if code != 0 || !strings.Contains(out, "EMAIL") || !strings.Contains(out, "ravi@example.in  2026-11-20 10:00:00") || !strings.HasSuffix(out, "3 opt-outs\n") {
		t.Errorf("text list, exit %d:\n%s", code, out)
	}
	code, out, _ = execute(t, nil, "mail", "optouts", "--format", "csv", "--db", db)
	if want := "email,unsubscribed_at\nravi@example.in,2026-11-20T10:00:00Z\nasha@example.in,2026-11-21T09:30:00Z\n'-2+3@example.in,2026-11-21T09:40:00Z\n"; code != 0 || out != want {
		t.Errorf("csv, exit %d:\n%s\nwant:\n%s", code, out, want)
	}
	if code, _, stderr := execute(t, nil, "mail", "optouts", "--format", "xml", "--db", db); code != 2 || !strings.Contains(stderr, "text or csv") {
		t.Errorf("--format xml: exit %d, %q", code, stderr)
	}
	code, out, _ = execute(t, nil, "mail", "optouts", "remove", "RAVI@example.in", "--db", db)
	if code != 0 || !strings.Contains(out, "removed the opt-out of RAVI@example.in") {
		t.Errorf("remove: exit %d, %q", code, out)
	}
	code, _, stderr := execute(t, nil, "mail", "optouts", "remove", "ravi@example.in", "--db", db)
	if code != 1 || !strings.Contains(stderr, "ravi@example.in has no opt-out") {
		t.Errorf("removing it again: exit %d, %q", code, stderr)
	}
	if _, out, _ := execute(t, nil, "mail", "optouts", "--format", "csv", "--db", db); out != "email,unsubscribed_at\nasha@example.in,2026-11-21T09:30:00Z\n'-2+3@example.in,2026-11-21T09:40:00Z\n" {
		t.Errorf("after removing ravi@:\n%s", out)
	}
}

// TestMailOptoutsShowTheReason: the text list shows the reason each
// address gave, on its line (a line break or a bidi control written as an
// escape, so a reason cannot forge a line or reorder the listing).
func TestMailOptoutsShowTheReason(t *testing.T) {
	db := mailDB(t,
		`INSERT INTO mail_opt_outs (email, created_at, reason) VALUES ('ravi@example.in', '2026-11-20T10:00:00.000Z', 'बहुत ज़्यादा ईमेल')`,
		`INSERT INTO mail_opt_outs (email, created_at, reason) VALUES ('asha@example.in', '2026-11-21T09:30:00.000Z', 'Too many mails.
fake@example.in  2026-11-22 00:00:00 '||char(8238)||'x')`,
		`INSERT INTO mail_opt_outs (email, created_at) VALUES ('mohan@example.in', '2026-11-22T08:00:00.000Z')`)
	code, out, _ := execute(t, nil, "mail", "optouts", "--db", db)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 5 || !strings.Contains(lines[0], "REASON") ||
		!strings.HasSuffix(lines[1], "2026-11-20 10:00:00  बहुत ज़्यादा ईमेल") ||
		!strings.HasSuffix(lines[2], `Too many mails.\nfake@example.in  2026-11-22 00:00:00 \u202ex`) ||
		!strings.HasSuffix(strings.TrimRight(lines[3], " "), "2026-11-22 08:00:00") || lines[4] != "3 opt-outs" {
		t.Errorf("text list, exit %d:\n%s", code, out)
	}
}
