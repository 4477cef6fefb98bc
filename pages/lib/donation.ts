// The amount of a donation (SPEC §5: the Other field takes whole dollars,
// digits only, by the rule `donation` of data/forms.json), for the
// donation form (islands/DonationForm.tsx).
import { donation } from '../../data/forms.json';
import { check } from './form';

const [otherRule] = donation;

// amountOf is the whole number of dollars the visitor chose (a preset, or
// 'other' and what the Other field holds), or null when nothing valid is
// chosen: the amount sent is always the one the field shows, never a
// number made of part of it.
export function amountOf(choice: number | 'other' | null, other: string): number | null {
  if (typeof choice === 'number') return choice;
  if (choice === 'other' && check(otherRule, other) === '') return Number(other);
  return null;
}

// typedDigits is what the Other field keeps of what was typed or pasted:
// all of it, character for character, with Devanagari digits read as the
// same digits 0–9, so a refused amount ("2.50") stays in view beside its
// error instead of turning into another number.
export function typedDigits(value: string): string {
  return value.replace(/[०-९]/g, (d) => String(d.charCodeAt(0) - 0x966));
}
