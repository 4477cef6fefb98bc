import { useEffect, useId, useRef, useState } from 'react';
import { useT } from '../lib/i18n';

interface Props {
  label: string;
  name: string;
  accept: string;
  hint?: string;
  error?: string; // message key, '' when none
  // file is the chosen file when the form keeps it (null clears the
  // picker); without it the picker keeps the choice itself.
  file?: File | null;
  onChange?: (file: File | null) => void;
}

// FilePicker is a labelled file input in the page's language. A browser
// draws its own file input in the browser's language ("Choose File", "No
// file chosen"), so the native input is made invisible, though it stays
// the focused and labelled control for keyboards and screen readers (its
// description says which file is chosen), and a translated button and the
// chosen file's name are shown in its place. The button is a second label
// of the input: a click on it opens the browser's file chooser.
export function FilePicker({ label, name, accept, hint, error, file, onChange }: Props) {
  const { t } = useT();
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [own, setOwn] = useState<File | null>(null);
  const chosen = file === undefined ? own : file;
  // A choice the form refused or cleared (chosen is null) leaves no file
  // in the input either, so nothing stale is sent or described.
  useEffect(() => {
    if (!chosen && input.current?.value) input.current.value = '';
  });
  const describedBy = [hint ? `${id}-hint` : '', `${id}-chosen`, error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className={error ? 'field file-picker invalid' : 'field file-picker'}>
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p className="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      <div className="file-picker-row">
        <input
          ref={input}
          id={id}
          className="file-picker-input"
          type="file"
          name={name}
          accept={accept}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          onChange={(e) => {
            const picked = e.target.files?.[0] ?? null;
            setOwn(picked);
            onChange?.(picked);
          }}
        />
        <label htmlFor={id} className="button secondary file-picker-button" aria-hidden="true">
          {t('forms.chooseFile')}
        </label>
        <span className="file-picker-chosen" id={`${id}-chosen`}>
          {chosen ? chosen.name : t('forms.noFileChosen')}
        </span>
      </div>
      {error && (
        <p className="field-error" id={`${id}-error`}>
          {t(error)}
        </p>
      )}
    </div>
  );
}
