// The donation amount (lib/donation.ts, SPEC §5: the Other field takes
// digits only): one row per rule.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { amountOf, otherDigits } from './donation';

const amounts: Array<[rule: string, choice: number | 'other' | null, other: string, want: number | null]> = [
  ['a preset is its amount', 20, '', 20],
  ['nothing chosen is no amount', null, '', null],
  ['the Other amount in digits', 'other', '25', 25],
  ['an empty Other amount is none', 'other', '', null],
  ['zero is no amount', 'other', '0', null],
  ['leading zeros read as the number', 'other', '007', 7],
  ['anything but digits is no amount', 'other', '12.50', null],
];

for (const [rule, choice, other, want] of amounts) {
  test(rule, () => assert.equal(amountOf(choice, other), want));
}

const typed: Array<[rule: string, value: string, want: string | null]> = [
  ['digits are kept', '1250', '1250'],
  ['an emptied field is kept empty', '', ''],
  ['Devanagari digits read as the same digits', '२५', '25'],
  ['mixed digits read as digits', '1०', '10'],
  ['a letter refuses what was typed', '7x', null],
  ['a decimal point refuses a pasted amount whole', '12.50', null],
  ['a currency sign is refused', '$30', null],
  ['a minus sign is refused', '-5', null],
  ['a space is refused', ' ', null],
];

for (const [rule, value, want] of typed) {
  test(rule, () => assert.equal(otherDigits(value), want));
}
