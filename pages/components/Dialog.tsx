import { useRef, useState, type ReactNode } from 'react';
import { useT } from '../lib/i18n';

// isOpen says whether a dialog with this id is open in the document. Opening
// a second dialog with an id that is already open is a programming error
// and raises one (SPEC §8). The document is asked, not a list kept beside
// it: the browser closes a dialog itself at times (a second Escape after a
// refused one closes it without a cancel event) and tells only later, in a
// close event that a visitor's click can overtake.
function isOpen(id: string): boolean {
  return [...document.querySelectorAll('dialog[open]')].some((d) => d.id === id);
}

// tabStops are the controls of the dialog that Tab stops at, in order
// (the dialog's content sets no positive tabindex).
function tabStops(dialog: HTMLElement): HTMLElement[] {
  return [...dialog.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea, [tabindex]')].filter(
    (el) => el.tabIndex >= 0 && !(el as HTMLButtonElement).disabled && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden',
  );
}

// keepFocusInside makes Tab and Shift+Tab wrap around the dialog's
// controls. A modal <dialog> makes the page inert, but from its last
// control the browser's Tab leaves the document (for its own toolbar)
// and comes back to the page's body: the page under the dialog seemed
// reachable once a round.
function keepFocusInside(e: React.KeyboardEvent<HTMLDialogElement>) {
  if (e.key !== 'Tab' || e.altKey || e.ctrlKey || e.metaKey) return;
  const stops = tabStops(e.currentTarget);
  const active = document.activeElement as HTMLElement | null;
  const at = active ? stops.indexOf(active) : -1;
  const next = e.shiftKey ? (at <= 0 ? stops.length - 1 : -1) : at === stops.length - 1 || at === -1 ? 0 : -1;
  if (stops.length === 0) {
    e.preventDefault();
  } else if (next >= 0) {
    e.preventDefault();
    stops[next].focus();
  }
}

// exitMs is the exit animation (SPEC §9: 75 ms; .dialog.closing in site.css).
const exitMs = 75;

export interface DialogControl {
  id: string;
  ref: React.RefObject<HTMLDialogElement | null>;
  closing: boolean;
  open(): void;
  close(): void;
}

// useDialog controls a native <dialog> (SPEC §4: open, closing, closed).
export function useDialog(id: string): DialogControl {
  const ref = useRef<HTMLDialogElement>(null);
  const exit = useRef<ReturnType<typeof setTimeout>>(undefined);
  const [closing, setClosing] = useState(false);
  return {
    id,
    ref,
    closing,
    open() {
      if (isOpen(id)) throw new Error(`a dialog with id "${id}" is already open`);
      // The browser may have closed the dialog itself during its exit
      // animation (Escape again): the animation's end must not close the
      // dialog opened now.
      clearTimeout(exit.current);
      setClosing(false);
      ref.current?.showModal();
    },
    close() {
      const el = ref.current;
      if (!el?.open || closing) return;
      setClosing(true);
      exit.current = setTimeout(() => {
        el.close();
        setClosing(false);
      }, exitMs);
    },
  };
}

interface Props {
  control: DialogControl;
  title: string;
  // disableClose keeps the dialog open on Escape and backdrop clicks
  // (while a form in it is sending, say).
  disableClose?: boolean;
  children: ReactNode;
}

// Dialog is a modal native <dialog>, at most 80vw wide, entering in 150 ms
// and leaving in 75 ms (CSS .dialog). Escape and a click on the backdrop
// close it unless closing is disabled; Tab keeps to its controls; focus
// returns to what opened it.
export function Dialog({ control, title, disableClose, children }: Props) {
  const { t } = useT();
  const titleId = `${control.id}-title`;
  return (
    <dialog
      ref={control.ref}
      id={control.id}
      className={control.closing ? 'dialog closing' : 'dialog'}
      aria-labelledby={titleId}
      onKeyDown={keepFocusInside}
      onCancel={(e) => {
        // Escape: run the exit animation ourselves, or stay open.
        e.preventDefault();
        if (!disableClose) control.close();
      }}
      onClick={(e) => {
        const el = control.ref.current;
        if (!el || e.target !== el || disableClose) return;
        const r = el.getBoundingClientRect();
        const inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
        if (!inside) control.close();
      }}
    >
      <div className="dialog-header">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="dialog-close" onClick={() => control.close()} disabled={disableClose} aria-label={t('feedback.close')}>
          <span className="close-mark" aria-hidden="true"></span>
        </button>
      </div>
      {children}
    </dialog>
  );
}
