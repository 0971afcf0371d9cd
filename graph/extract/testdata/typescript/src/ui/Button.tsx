// Exercises: a .tsx component (a default-exported function), JSX use of
// an imported component's member, of a local component and of an
// intrinsic element, hooks from an npm package, a props interface.
import React, { useState } from 'react';
import { Client } from '../net/client';
import Icon from './Icon';

export interface ButtonProps {
  label: string;
  onClick?: () => void;
}

export default function Button({ label, onClick }: ButtonProps) {
  const [busy, setBusy] = useState(false);
  const click = async () => {
    setBusy(true);
    await Client.parse('localhost:1').connect();
    onClick?.();
  };
  return (
    <button disabled={busy} onClick={click}>
      <Icon.Spinner size={12} />
      <Label text={label} />
    </button>
  );
}

function Label({ text }: { text: string }) {
  return <span>{text}</span>;
}
