// The amount of a donation (SPEC §5: the Other field takes digits only),
// for the donation form (islands/DonationForm.tsx).

// amountOf is the whole number of dollars the visitor chose (a preset, or
// 'other' and what the Other field holds), or null when nothing valid is
// chosen.
export function amountOf(choice: number | 'other' | null, other: string): number | null {
  if (typeof choice === 'number') return choice;
  if (choice === 'other' && /^\d+$/.test(other) && Number(other) > 0) return Number(other);
  return null;
}

// otherDigits is what the Other field keeps of what was typed or pasted
// into it: its digits, Devanagari digits read as the same digits, or null
// when it holds anything else, which is refused whole (a pasted "12.50"
// never becomes 1250).
export function otherDigits(value: string): string | null {
  const digits = value.replace(/[०-९]/g, (d) => String(d.charCodeAt(0) - 0x966));
  return /^\d*$/.test(digits) ? digits : null;
}
