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
	// State is a state or union territory code such as MH: exactly Length
	// capital letters, and one of data/states.json's Indian codes when the
	// row's country (the column CountryID names) is IN or empty.
	State
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
var kindNames = [...]string{Text: "text", Digits: "digits", State: "state", Country: "country", PostalCode: "postalCode", Amount: "amount"}

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
	// Length is the exact length of a Digits, State or Country value.
	Length  int    `json:"length,omitempty"`
	Example string `json:"example"`
	// Aliases are other headings that name this column (matched like
	// Name: whatever the case, spaces and punctuation).
	Aliases []string `json:"-"`
	// CountryID is the column holding a State column's country.
	CountryID string `json:"-"`
	// LeadingZeros says a Digits value may start with 0 (MC numbers do),
	// the digit Excel drops when the column is a number column.
	LeadingZeros bool `json:"-"`
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
// capital letters; amounts may be negative (credits). The aliases are
// headings that clerks' spreadsheets and Tally or ERP exports use for the
// same columns.
const (
	shortText = 35
	longText  = 100
	postal    = 12
)

// Format is the receivables import format: the single source of the
// validator, the Table Schema, the sample file and the help page.
var Format = Schema{
	Columns: [ColumnCount]Column{
		{ID: "accountNumber", Name: "Account Number", Required: true, Kind: Text, MaxLength: shortText, Example: "CUST-000123", Aliases: []string{"Account No", "Account Code", "Customer Code", "Customer No", "Party Code"}},
		{ID: "companyName", Name: "Company Name", Required: true, Kind: Text, MaxLength: longText, Example: "Sharma Roadlines Pvt Ltd", Aliases: []string{"Company", "Customer Name", "Party Name", "Party's Name", "Name of Party"}},
		{ID: "mcNumber", Name: "MC Number", Kind: Digits, Length: 6, LeadingZeros: true, Example: "123456", Aliases: []string{"MC No", "MC"}},
		{ID: "phone", Name: "Phone", Kind: Digits, Length: 10, Example: "9876543210", Aliases: []string{"Phone No", "Phone Number", "Mobile", "Mobile No", "Contact No"}},
		{ID: "fax", Name: "Fax", Kind: Digits, Length: 10, Example: "2227412345", Aliases: []string{"Fax No", "Fax Number"}},
		{ID: "addressLine1", Name: "Address Line 1", Kind: Text, MaxLength: longText, Example: "Plot 14, MIDC Industrial Area", Aliases: []string{"Address 1", "Address", "Address1"}},
		{ID: "addressLine2", Name: "Address Line 2", Kind: Text, MaxLength: longText, Example: "Taloja", Aliases: []string{"Address 2", "Address2"}},
		{ID: "city", Name: "City", Kind: Text, MaxLength: longText, Example: "Navi Mumbai", Aliases: []string{"Town", "City Name"}},
		{ID: "state", Name: "State", Kind: State, Length: 2, Example: "MH", CountryID: "country", Aliases: []string{"State Code"}},
		{ID: "postalCode", Name: "Postal Code", Kind: PostalCode, MaxLength: postal, Example: "410208", Aliases: []string{"Pin Code", "PIN", "Pincode", "Zip", "Zip Code"}},
		{ID: "country", Name: "Country", Kind: Country, Length: 2, Example: "IN", Aliases: []string{"Country Code"}},
		{ID: "attention", Name: "Attention", Kind: Text, MaxLength: longText, Example: "Accounts Payable", Aliases: []string{"Attn", "Contact Person"}},
		{ID: "mailingAddress1", Name: "Mailing Address 1", Kind: Text, MaxLength: longText, Example: "PO Box 1123", Aliases: []string{"Mailing Address", "Mailing Address Line 1"}},
		{ID: "mailingAddress2", Name: "Mailing Address 2", Kind: Text, MaxLength: longText, Example: "Panvel Head Post Office", Aliases: []string{"Mailing Address Line 2"}},
		{ID: "mailingCity", Name: "Mailing City", Kind: Text, MaxLength: longText, Example: "Panvel"},
		{ID: "mailingState", Name: "Mailing State", Kind: State, Length: 2, Example: "MH", CountryID: "mailingCountry", Aliases: []string{"Mailing State Code"}},
		{ID: "mailingPostalCode", Name: "Mailing Postal Code", Kind: PostalCode, MaxLength: postal, Example: "410206", Aliases: []string{"Mailing Pin Code", "Mailing Zip", "Mailing Zip Code"}},
		{ID: "mailingCountry", Name: "Mailing Country", Kind: Country, Length: 2, Example: "IN", Aliases: []string{"Mailing Country Code"}},
		{ID: "days1to15", Name: "Days 1-15", Required: true, Kind: Amount, Example: "125000.00", Aliases: []string{"1-15 Days", "0-15 Days", "Upto 15 Days"}},
		{ID: "days16to30", Name: "Days 16-30", Required: true, Kind: Amount, Example: "48250.50", Aliases: []string{"16-30 Days"}},
		{ID: "days31to45", Name: "Days 31-45", Required: true, Kind: Amount, Example: "0.00", Aliases: []string{"31-45 Days"}},
		{ID: "days46to60", Name: "Days 46-60", Required: true, Kind: Amount, Example: "12000", Aliases: []string{"46-60 Days"}},
		{ID: "days61to75", Name: "Days 61-75", Required: true, Kind: Amount, Example: "0", Aliases: []string{"61-75 Days"}},
		{ID: "days76to90", Name: "Days 76-90", Required: true, Kind: Amount, Example: "-1500.00", Aliases: []string{"76-90 Days"}},
		{ID: "days91Plus", Name: "Over 91 Days", Required: true, Kind: Amount, Example: "7300.25", Aliases: []string{"91+ Days", "Over 90 Days", "Above 90 Days", "More than 90 Days", "91 Days and Above"}},
	},
	AmountDigits:   13,
	AmountDecimals: 2,
	MaxFileBytes:   50_000_000,
	SampleFile:     "/assets/receivables-import-sample.csv",
}
