// The donation amount (lib/donation.ts, SPEC §5: the Other field takes
// digits only): one row per rule.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { amountOf, typedDigits } from './donation';

const amounts: Array<[rule: string, choice: number | 'other' | null, other: string, want: number | null]> = [
  ['a preset is its amount', 20, '', 20],
  ['nothing chosen is no amount', null, '', null],
  ['the Other amount in digits', 'other', '25', 25],
  ['an empty Other amount is none', 'other', '', null],
  ['zero is no amount', 'other', '0', null],
  ['a leading zero is refused (the field shows what is sent)', 'other', '007', null],
  ['more than seven digits is refused', 'other', '12345678', null],
  ['anything but digits is no amount', 'other', '12.50', null],
];

for (const [rule, choice, other, want] of amounts) {
  test(rule, () => assert.equal(amountOf(choice, other), want));
}

const refused: Array<[rule: string, other: string]> = [
  ['a decimal point is no amount (never 250 for 2.50)', '2.50'],
  ['an exponent is no amount (never 153 for 1.5e3)', '1.5e3'],
  ['a minus sign is no amount', '-5'],
  ['a currency sign is no amount', '$30'],
  ['a space is no amount', '25 '],
  ['a grouping comma is no amount', '1,000'],
];

for (const [rule, other] of refused) {
  test(rule, () => assert.equal(amountOf('other', other), null));
}

const typed: Array<[rule: string, value: string, want: string]> = [
  ['digits are kept', '1250', '1250'],
  ['an emptied field is kept empty', '', ''],
  ['Devanagari digits read as the same digits', '२५', '25'],
  ['mixed digits read as digits', '1०', '10'],
  ['a refused amount is kept as typed, not cut to its digits', '12.50', '12.50'],
  ['a currency sign is kept as typed', '$30', '$30'],
];

for (const [rule, value, want] of typed) {
  test(rule, () => assert.equal(typedDigits(value), want));
}
