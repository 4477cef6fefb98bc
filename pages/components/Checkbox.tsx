import { useId } from 'react';

interface Props {
  label: string;
  name?: string;
  checked: boolean;
  onChange(checked: boolean): void;
}

// Checkbox is a labelled checkbox (remember me, show passwords).
export function Checkbox({ label, name, checked, onChange }: Props) {
  const id = useId();
  return (
    <div className="checkbox">
      <input type="checkbox" id={id} name={name} checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}
