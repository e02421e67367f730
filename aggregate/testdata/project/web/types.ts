export interface Shape {
  area(): number;
}

export class Square implements Shape {
  constructor(private side: number) {}
  area(): number {
    return this.side * this.side;
  }
}

export function total(shapes: Shape[]): number {
  return shapes.reduce((a, s) => a + s.area(), 0);
}
