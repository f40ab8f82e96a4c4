import { SCOPES } from '@gateway/lib/scopes';

/** Every scope a key can carry, with what it permits (docs/api.md#authentication); at least one must stay chosen. */
export function ScopePicker({ chosen, onChange }: { chosen: readonly string[]; onChange: (scopes: string[]) => void }) {
  const toggle = (name: string, on: boolean) => onChange(SCOPES.map((scope) => scope.name).filter((scope) => (scope === name ? on : chosen.includes(scope))));
  return (
    <fieldset class="field scope-picker">
      <legend class="field-label">Scopes</legend>
      {SCOPES.map((scope) => (
        <label key={scope.name} class="check">
          <input type="checkbox" name="scopes" value={scope.name} checked={chosen.includes(scope.name)} onChange={(event) => toggle(scope.name, event.currentTarget.checked)} />
          <span>
            <code>{scope.name}</code>
            <span class="check-help">{scope.permits}</span>
          </span>
        </label>
      ))}
      {chosen.length === 0 ? (
        <p class="field-error" role="alert">
          Choose at least one scope.
        </p>
      ) : null}
    </fieldset>
  );
}
