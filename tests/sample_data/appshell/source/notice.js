import Head from "next/head";

export default function Notice() {
  return (
    <>
      <Head><title>Allotments closed on Saturday | Riverside Gardening Club</title></Head>
      <main>
        <h1>Allotments closed on Saturday</h1>
        <p>
          The allotment gates will stay locked all day on Saturday 14 November while the water
          company replaces the mains pipe under the car park. Plot holders can collect tools
          on Friday evening. We reopen on Sunday at eight.
        </p>
      </main>
    </>
  );
}
