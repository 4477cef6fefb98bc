package receivables

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"freightsite/internal/csvsafe"
)

// tableField is one field of a Frictionless Table Schema
// (https://specs.frictionlessdata.io/table-schema/).
type tableField struct {
	Name        string           `json:"name"`
	Title       string           `json:"title"`
	Type        string           `json:"type"`
	Description string           `json:"description"`
	Example     string           `json:"example"`
	BareNumber  *bool            `json:"bareNumber,omitempty"`
	DecimalChar string           `json:"decimalChar,omitempty"`
	Constraints tableConstraints `json:"constraints"`
}

type tableConstraints struct {
	Required  bool     `json:"required"`
	MinLength int      `json:"minLength,omitempty"`
	MaxLength int      `json:"maxLength,omitempty"`
	Pattern   string   `json:"pattern,omitempty"`
	Enum      []string `json:"enum,omitempty"`
}

type tableSchema struct {
	Fields        []tableField `json:"fields"`
	MissingValues []string     `json:"missingValues"`
}

// TableSchema is Format as a Frictionless Table Schema. Patterns use the
// syntax XML Schema, Go and JavaScript share and match the whole value.
func TableSchema() ([]byte, error) {
	s := tableSchema{MissingValues: []string{""}}
	yes := true
	for _, c := range Format.Columns {
		f := tableField{Name: c.ID, Title: c.Name, Type: "string", Description: describeColumn(c), Example: c.Example,
			Constraints: tableConstraints{Required: c.Required}}
		switch c.Kind {
		case Text:
			f.Constraints.MaxLength = c.MaxLength
			f.Constraints.Pattern = fmt.Sprintf(`[^\s\p{Cc}%[1]s]([^\p{Cc}%[1]s]*[^\s\p{Cc}%[1]s])?`, invisibleChars)
		case Digits:
			f.Constraints.MinLength, f.Constraints.MaxLength = c.Length, c.Length
			f.Constraints.Pattern = fmt.Sprintf("[0-9]{%d}", c.Length)
		case State:
			f.Constraints.MinLength, f.Constraints.MaxLength = c.Length, c.Length
			f.Constraints.Pattern = fmt.Sprintf("[A-Z]{%d}", c.Length)
		case Country:
			f.Constraints.Enum = CountryCodes()
		case PostalCode:
			f.Constraints.MaxLength = c.MaxLength
			f.Constraints.Pattern = `[A-Za-z0-9]([A-Za-z0-9 \-]*[A-Za-z0-9])?`
		case Amount:
			f.Type, f.BareNumber, f.DecimalChar = "number", &yes, "."
			f.Constraints.Pattern = fmt.Sprintf(`-?[0-9]{1,%d}(\.[0-9]{1,%d})?`, Format.AmountDigits, Format.AmountDecimals)
		}
		s.Fields = append(s.Fields, f)
	}
	return json.MarshalIndent(s, "", "  ")
}

// describeColumn says in English what a column holds.
func describeColumn(c Column) string {
	var s string
	switch c.Kind {
	case Text:
		s = fmt.Sprintf("Text on one line, at most %d characters, without invisible characters (no-break or zero-width spaces) and not a spreadsheet formula's error value (#REF!, #N/A...).", c.MaxLength)
	case Digits:
		s = fmt.Sprintf("Exactly %d digits.", c.Length)
	case State:
		s = fmt.Sprintf("%d capital letters; when the row's %s is IN or empty, the code of an Indian state or union territory: %s.",
			c.Length, Format.Columns[countryOf[columnIndex[c.ID]]].Name, strings.Join(stateCodes(), ", "))
	case Country:
		s = "ISO 3166-1 alpha-2 country code in capitals."
	case PostalCode:
		s = fmt.Sprintf("Letters, digits, spaces and hyphens, at most %d characters.", c.MaxLength)
	case Amount:
		s = fmt.Sprintf("Amount in rupees: digits with at most %d decimals and a point as decimal mark; a leading minus for credits; no thousands separators or currency symbols.", Format.AmountDecimals)
	}
	if c.Required {
		return "Required. " + s
	}
	return "Optional. " + s
}

// HelpData is what the /standard-15-day-format page renders: Format and
// its example row written as CSV. It is written to
// data/receivables-schema.json (a test keeps that file current).
func HelpData() ([]byte, error) {
	var row bytes.Buffer
	w := csvsafe.NewWriter(&row)
	var example [ColumnCount]string
	for i, c := range Format.Columns {
		example[i] = c.Example
	}
	_ = w.Write(example[:])
	w.Flush()
	b, err := json.MarshalIndent(struct {
		Schema
		ExampleRow string `json:"exampleRow"`
	}{Format, strings.TrimSuffix(row.String(), "\n")}, "", "  ")
	return append(b, '\n'), err
}
