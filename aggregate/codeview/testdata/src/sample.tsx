import React from "react";

type Props = { name: string };

/** Greets someone. */
export function Greeting({ name }: Props) {
  const onClick = () => {
    alert(name);
  };
  return <button onClick={onClick}>Hello {name}</button>;
}

export default class Panel extends React.Component<Props> {
  handle = async () => {
    await fetch("/x");
  };

  render() {
    return <div>{this.props.name}</div>;
  }
}
