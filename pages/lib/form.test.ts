// The field rules of data/forms.json as the forms apply them (check):
// one row per rule, with the message key it answers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import forms from '../../data/forms.json';
import { check, type FieldRule } from './form';

type FormName = 'contact' | 'feedback' | 'unsubscribe' | 'login' | 'registration' | 'forgotPassword' | 'resetPassword' | 'auction' | 'emailUniqueness';

function rule(form: FormName, field: string): FieldRule {
  const found = (forms[form] as FieldRule[]).find((r) => r.field === field);
  if (!found) throw new Error(`data/forms.json has no field ${form}.${field}`);
  return found;
}

const rows: Array<[rule: string, form: FormName, field: string, value: string, want: string]> = [
  ['a blank required field answers its required message', 'contact', 'name', '   ', 'contact.errors.nameRequired'],
  ['an empty optional field passes', 'contact', 'phone', '', ''],
  ['checks run in order: the first one broken answers', 'contact', 'email', 'ab', 'forms.emailTooShort'],
  ['an e-mail address needs its @ and domain', 'contact', 'email', 'abc', 'forms.emailInvalid'],
  ['a valid e-mail address passes', 'unsubscribe', 'emailId', 'Leaving.Member@Example.in', ''],
  ['a contact phone is digits without a leading zero', 'contact', 'phone', '0123', 'contact.errors.phoneDigits'],
  ['a contact phone has at most 10 digits', 'contact', 'phone', '98200123456', 'contact.errors.phoneTooLong'],
  ['a contact phone of 10 digits passes', 'contact', 'phone', '9820012345', ''],
  ['a feedback name is letters, not digits', 'feedback', 'name', 'Agent 007', 'forms.nameNotNumeric'],
  ['a feedback name may be written in any script', 'feedback', 'name', 'स्नेहा पाटील', ''],
  ['a feedback phone is digits', 'feedback', 'phone', '12ab', 'forms.phoneNumeric'],
  ['a feedback phone has exactly 10 digits', 'feedback', 'phone', '12345', 'forms.phoneTenDigits'],
  ['a one-line field refuses a line break', 'contact', 'subject', 'Return load\nfrom Nagpur', 'forms.oneLine'],
  ['a multiline field keeps its line breaks', 'contact', 'message', 'Return load\nfrom Nagpur', ''],
  ['a new password has at least 8 characters', 'resetPassword', 'newPassword', 'Lorry#1', 'RESET.RESET8'],
  ['a new password has a letter and a digit or sign', 'resetPassword', 'newPassword', 'lorrytruck', 'RESET.RESET9'],
  ['a new password of letters, digits and signs passes', 'resetPassword', 'newPassword', 'Lorry#2025', ''],
  ['the confirmation has messages of its own', 'resetPassword', 'confirmPassword', 'lorrytruck', 'RESET.RESET13'],
];

for (const [name, form, field, value, want] of rows) {
  test(name, () => {
    assert.equal(check(rule(form, field), value), want, `${form}.${field} = ${JSON.stringify(value)}`);
  });
}

test('lengths count characters, not UTF-16 code units', () => {
  const name = rule('contact', 'name'); // at most 100
  assert.equal(check(name, '𝒜'.repeat(100)), '');
  assert.equal(check(name, '𝒜'.repeat(101)), 'forms.tooLong');
});

test('every rule of every form can be checked in a browser', () => {
  for (const [form, rules] of Object.entries(forms)) {
    if (!Array.isArray(rules)) continue;
    for (const r of rules as FieldRule[]) {
      assert.doesNotThrow(() => check(r, 'x'), `${form}.${r.field}`);
    }
  }
});
