// Package receivables is the 25-column receivables import file of SPEC §3
// ("Import CSV"): one schema value (Format) describes the columns, and the
// streaming validator, the Frictionless Table Schema, the sample file and the
// /standard-15-day-format help page are all generated from it.
package receivables

// ColumnCount is the number of columns of every data row (SPEC §3).
const ColumnCount = 25

// Kind is the rule a column's values follow, besides being required or not.
type Kind uint8

const (
	// Text is any single line of text of at most MaxLength characters.
	Text Kind = iota
	// Digits is exactly Length digits 0-9 (MC number, phone, fax).
	Digits
	// Code is exactly Length capital letters A-Z (state codes such as MH).
	Code
	// Country is an ISO 3166-1 alpha-2 country code such as IN.
	Country
	// PostalCode is letters, digits, spaces and hyphens, at most MaxLength.
	PostalCode
	// Amount is a decimal number of rupees: an optional minus sign (a
	// credit), at most AmountDigits digits, then optionally a point and at
	// most AmountDecimals decimals. No thousands separators or symbols.
	Amount
)

// kindNames are the kinds' names in JSON and the help page's keys.
var kindNames = [...]string{Text: "text", Digits: "digits", Code: "code", Country: "country", PostalCode: "postalCode", Amount: "amount"}

func (k Kind) String() string { return kindNames[k] }

// MarshalText writes the kind by name: JSON and the help page use names.
func (k Kind) MarshalText() ([]byte, error) { return []byte(kindNames[k]), nil }

// Column is one column of the import file.
type Column struct {
	// ID is the column's stable identifier: JSON reports and the help
	// page's translation keys (importFormat.columns.<id>) use it.
	ID string `json:"id"`
	// Name is the English heading of the column in the sample file.
	Name     string `json:"name"`
	Required bool   `json:"required"`
	Kind     Kind   `json:"kind"`
	// MaxLength is the most characters (Unicode code points) of a Text or
	// PostalCode value.
	MaxLength int `json:"maxLength,omitempty"`
	// Length is the exact length of a Digits, Code or Country value.
	Length  int    `json:"length,omitempty"`
	Example string `json:"example"`
}

// Schema is the whole file format.
type Schema struct {
	Columns [ColumnCount]Column `json:"columns"`
	// AmountDigits is the most digits before an amount's decimal point
	// (13: up to 9,999,999,999,999.99, a DECIMAL(15,2)).
	AmountDigits int `json:"amountDigits"`
	// AmountDecimals is the most digits after an amount's decimal point.
	AmountDecimals int `json:"amountDecimals"`
	// MaxFileBytes is the largest file the site's checker accepts.
	MaxFileBytes int64 `json:"maxFileBytes"`
	// SampleFile is the URL path of the sample file the site publishes.
	SampleFile string `json:"sampleFile"`
}

// Where SPEC §3 is silent: the address lines and Mailing Address 1 and 2
// take 100 characters like City and Attention; every column other than
// the two identifying ones and the seven amounts is optional; codes are
// capital letters; amounts may be negative (credits).
const (
	shortText = 35
	longText  = 100
	postal    = 12
)

// Format is the receivables import format: the single source of the
// validator, the Table Schema, the sample file and the help page.
var Format = Schema{
	Columns: [ColumnCount]Column{
		{ID: "accountNumber", Name: "Account Number", Required: true, Kind: Text, MaxLength: shortText, Example: "CUST-000123"},
		{ID: "companyName", Name: "Company Name", Required: true, Kind: Text, MaxLength: longText, Example: "Sharma Roadlines Pvt Ltd"},
		{ID: "mcNumber", Name: "MC Number", Kind: Digits, Length: 6, Example: "123456"},
		{ID: "phone", Name: "Phone", Kind: Digits, Length: 10, Example: "9876543210"},
		{ID: "fax", Name: "Fax", Kind: Digits, Length: 10, Example: "2227412345"},
		{ID: "addressLine1", Name: "Address Line 1", Kind: Text, MaxLength: longText, Example: "Plot 14, MIDC Industrial Area"},
		{ID: "addressLine2", Name: "Address Line 2", Kind: Text, MaxLength: longText, Example: "Taloja"},
		{ID: "city", Name: "City", Kind: Text, MaxLength: longText, Example: "Navi Mumbai"},
		{ID: "state", Name: "State", Kind: Code, Length: 2, Example: "MH"},
		{ID: "postalCode", Name: "Postal Code", Kind: PostalCode, MaxLength: postal, Example: "410208"},
		{ID: "country", Name: "Country", Kind: Country, Length: 2, Example: "IN"},
		{ID: "attention", Name: "Attention", Kind: Text, MaxLength: longText, Example: "Accounts Payable"},
		{ID: "mailingAddress1", Name: "Mailing Address 1", Kind: Text, MaxLength: longText, Example: "PO Box 1123"},
		{ID: "mailingAddress2", Name: "Mailing Address 2", Kind: Text, MaxLength: longText, Example: "Panvel Head Post Office"},
		{ID: "mailingCity", Name: "Mailing City", Kind: Text, MaxLength: longText, Example: "Panvel"},
		{ID: "mailingState", Name: "Mailing State", Kind: Code, Length: 2, Example: "MH"},
		{ID: "mailingPostalCode", Name: "Mailing Postal Code", Kind: PostalCode, MaxLength: postal, Example: "410206"},
		{ID: "mailingCountry", Name: "Mailing Country", Kind: Country, Length: 2, Example: "IN"},
		{ID: "days1to15", Name: "Days 1-15", Required: true, Kind: Amount, Example: "125000.00"},
		{ID: "days16to30", Name: "Days 16-30", Required: true, Kind: Amount, Example: "48250.50"},
		{ID: "days31to45", Name: "Days 31-45", Required: true, Kind: Amount, Example: "0.00"},
		{ID: "days46to60", Name: "Days 46-60", Required: true, Kind: Amount, Example: "12000"},
		{ID: "days61to75", Name: "Days 61-75", Required: true, Kind: Amount, Example: "0"},
		{ID: "days76to90", Name: "Days 76-90", Required: true, Kind: Amount, Example: "-1500.00"},
		{ID: "days91Plus", Name: "Over 91 Days", Required: true, Kind: Amount, Example: "7300.25"},
	},
	AmountDigits:   13,
	AmountDecimals: 2,
	MaxFileBytes:   50_000_000,
	SampleFile:     "/assets/receivables-import-sample.csv",
}
