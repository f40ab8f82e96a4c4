import type { ComponentChildren } from 'preact';
import { useId, useLayoutEffect, useRef } from 'preact/hooks';

/**
 * A modal dialog on the browser's own <dialog>: it keeps focus inside while
 * open, closes on Escape, and gives focus back to what had it before.
 * The first control marked `autofocus` gets focus when it opens.
 */
export function Dialog({
  title,
  description,
  onClose,
  children,
  wide,
}: {
  title: string;
  description?: string;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  // A layout effect runs in the same task as the render that inserted the dialog, before the
  // browser moves focus to an `autofocus` control at its next rendering step; a deferred effect
  // could run after that and take the dialog's own input for the control to give focus back to.
  useLayoutEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    const cancel = (event: Event) => {
      event.preventDefault();
      closeRef.current();
    };
    dialog.addEventListener('cancel', cancel);
    return () => {
      dialog.removeEventListener('cancel', cancel);
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  return (
    <dialog ref={ref} class={wide ? 'dialog dialog-wide' : 'dialog'} aria-labelledby={titleId} aria-describedby={description ? descriptionId : undefined}>
      <header class="dialog-header">
        <h2 id={titleId}>{title}</h2>
        <button type="button" class="icon-button" aria-label="Close" onClick={() => closeRef.current()}>
          ×
        </button>
      </header>
      {description ? (
        <p id={descriptionId} class="dialog-description">
          {description}
        </p>
      ) : null}
      {children}
    </dialog>
  );
}
